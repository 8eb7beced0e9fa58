export { decodeProtobuf, protoPackageFor, protobufMediaType, type DecodedProtobuf } from './codec.js';
export { encodeProtobuf, encodeListProtobuf, encodeMessage, encodeWatchFrame, wrapProtobufMessage, hasProtobufMessage, protobufMagic } from './encode.js';
export { decodeMessage, readEnvelope, type Envelope } from './decode.js';
export { messageDescriptor, messageForKind, type MessageDescriptor } from './descriptors.js';
