/**
 * The transport to a cluster's login node: one SSH connection (ssh2) that carries every
 * command as its own channel, plus one SFTP session for files. It composes its parts, each in
 * `ssh/`: the login to each host (`auth.ts`), the connection through the bastions with every
 * host key verified (`connect.ts`), the commands (`channels.ts`) and the files (`sftp.ts`).
 */
import type { CommandResult, Transport } from './transport.js';
import type { Word } from './words.js';
import { type ChannelOptions, CommandChannels } from './ssh/channels.js';
import { type ConnectOptions, Connector } from './ssh/connect.js';
import { type FileOptions, SftpFiles } from './ssh/sftp.js';

export interface SshTransportOptions extends ConnectOptions, ChannelOptions, FileOptions {}

export class SshTransport implements Transport {
  private readonly connector: Connector;
  private readonly channels: CommandChannels;
  private readonly files: SftpFiles;

  /** Checks the options and reads the keys; throws a UserError for anything the user must fix. */
  constructor(opts: SshTransportOptions) {
    this.connector = new Connector(opts);
    this.channels = new CommandChannels(this.connector, opts);
    this.files = new SftpFiles(this.connector, opts);
  }

  get commandsSent(): number {
    return this.channels.commandsSent;
  }

  exec(command: string, opts: { timeoutMs?: number; stdin?: string | Buffer } = {}): Promise<CommandResult> {
    return this.channels.exec(command, opts);
  }

  run(words: readonly Word[], opts: { timeoutMs?: number; stdin?: string | Buffer } = {}): Promise<CommandResult> {
    return this.channels.run(words, opts);
  }

  attach(command: string, opts: { terminal: boolean }): Promise<number> {
    return this.channels.attach(command, opts);
  }

  writeFile(path: string, data: string | Buffer, opts: { mode?: number } = {}): Promise<void> {
    return this.files.writeFile(path, data, opts);
  }

  readFile(path: string, opts: { maxBytes?: number } = {}): Promise<string | undefined> {
    return this.files.readFile(path, opts);
  }

  stat(path: string): Promise<{ size: number; mtimeMs: number; isFile: boolean } | undefined> {
    return this.files.stat(path);
  }

  realpath(path: string): Promise<string | undefined> {
    return this.files.realpath(path);
  }

  rename(from: string, to: string): Promise<void> {
    return this.files.rename(from, to);
  }

  mkdirp(path: string): Promise<void> {
    return this.files.mkdirp(path);
  }

  close(): Promise<void> {
    return this.connector.close();
  }
}
