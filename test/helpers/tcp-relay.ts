/**
 * A TCP relay between the controller and sshd on loopback that counts the connections made
 * through it and cuts them all on command, as a failing network would (a reset, not a polite close).
 */
import { connect, createServer, type Socket } from 'node:net';

export class TcpRelay {
  /** The client sides of the connections open now. */
  private readonly clients = new Set<Socket>();
  private readonly server = createServer((client) => this.relay(client));
  /** How many connections the cuts have reset. */
  cutConnections = 0;
  /** How many connections have been made through the relay. */
  accepted = 0;

  private constructor(private readonly targetPort: number) {}

  static async start(targetPort: number): Promise<TcpRelay> {
    const relay = new TcpRelay(targetPort);
    await new Promise<void>((r) => relay.server.listen(0, '127.0.0.1', r));
    return relay;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  private relay(client: Socket): void {
    this.accepted += 1;
    const upstream = connect(this.targetPort, '127.0.0.1');
    this.clients.add(client);
    client.pipe(upstream).pipe(client);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('error', () => b.resetAndDestroy());
      a.on('close', () => {
        this.clients.delete(client);
        b.destroy();
      });
    }
  }

  /** Resets every connection open through the relay now; returns how many there were. */
  cut(): number {
    const n = this.clients.size;
    for (const c of this.clients) c.resetAndDestroy();
    this.cutConnections += n;
    return n;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
