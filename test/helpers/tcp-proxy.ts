// A TCP proxy in front of PostgreSQL that a test can cut: `cut()` resets every open connection (what a database
// crash does to its clients) and from then on resets each new one as it arrives (a database that is away);
// `restore()` lets connections through again. Tests of the app's behaviour in an outage point DATABASE_URL at it.
import net from "node:net";

export interface TcpProxy {
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  urlFor(databaseUrl: string): string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let up = true;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!up) return void client.resetAndDestroy();
    const upstream = net.connect(target.port, target.host);
    open.add(client).add(upstream);
    const drop = () => {
      for (const socket of [client, upstream]) {
        open.delete(socket);
        if (!socket.destroyed) socket.destroy();
      }
    };
    for (const socket of [client, upstream]) socket.once("error", drop).once("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    urlFor(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    cut() {
      up = false;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      up = true;
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
