// Types of ha-topology.mjs for the TypeScript packages that drive it (test/, bench/).
import type { ChildProcess } from 'node:child_process';
import type { Server } from 'node:net';

export interface Proc extends ChildProcess {
  exited: Promise<unknown>;
}

export interface EtcdMember {
  name: string;
  /** Client URL (http://127.0.0.1:port). */
  client: string;
  peer: string;
  dataDir: string;
  args: string[];
  proc: Proc;
}

export interface Backend {
  name: string;
  index: number;
  args: string[];
  proc: Proc;
  port: number;
  url: string;
  /** In the balancer's rotation (its last /readyz check passed). */
  healthy: boolean;
}

export interface Credentials {
  dir: string;
  ca: string;
  cert: string;
  key: string;
  tokens: string;
  adminToken: string;
  prometheusToken: string;
  kubeconfig: string;
}

export interface Topology {
  dir: string;
  lb: { server: Server; connections: Map<number, string> };
  lbUrl: string;
  creds: Credentials;
  ca: Buffer;
  etcd: EtcdMember[];
  backends: Backend[];
  stop(): Promise<void>;
}

export function freePort(): Promise<number>;
export function sleep(ms: number): Promise<void>;
export function alive(child: ChildProcess): boolean;
export function stopAll(): Promise<void>;
export function etcdHealthy(url: string): Promise<boolean>;
export function startEtcdMember(dir: string, m: EtcdMember): EtcdMember;
export function waitEtcdHealthy(dir: string, m: EtcdMember, timeoutMs?: number): Promise<void>;
export function startEtcdCluster(dir: string, count: number): Promise<EtcdMember[]>;
export function startReplicaProcess(dir: string, b: Backend): Promise<Backend>;
export function ready(backend: { port: number }, ca: Buffer): Promise<boolean>;
export function startTopology(o: { dir: string; port?: number; replicas?: number; etcdMembers?: number; extra?: string[] }): Promise<Topology>;
