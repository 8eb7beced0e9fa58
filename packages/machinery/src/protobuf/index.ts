export { decodeProtobuf, protoPackageFor, protobufMediaType, type DecodedProtobuf } from './codec.js';
