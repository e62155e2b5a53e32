// `npm run emulator -- --port N [--config file.json]`: starts the emulator and prints how to connect the app.
import { loadConfigFile, type EmulatorConfig } from "./config";
import { DEFAULT_CONFIG, startEmulator } from "./server";

const DEFAULT_PORT = 8787; // the port the README and `npm run demo` use

function parseArgs(argv: string[]): { port: number; config?: string } {
  let port = DEFAULT_PORT;
  let config: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (name === "--port") {
      const raw = value();
      if (raw === undefined || !/^\d+$/.test(raw) || Number(raw) > 65535)
        throw new Error(`--port needs a number from 0 to 65535, got ${raw}`);
      port = Number(raw);
    } else if (name === "--config") {
      config = value();
      if (!config) throw new Error("--config needs a file path");
    } else if (name === "--help" || name === "-h") {
      console.log("usage: npm run emulator -- [--port N] [--config file.json]");
      process.exit(0);
    } else {
      throw new Error(`unknown argument ${arg}`);
    }
  }
  return { port, config };
}

function describe(config: EmulatorConfig, url: string, fromFile: string | undefined): string {
  const lines = [
    fromFile
      ? `Merchant Integration Service emulator (config ${fromFile})`
      : "Merchant Integration Service emulator (sandbox app)",
  ];
  lines.push(`  base URL:          ${url}`, `  sandbox base URL:  ${url}`, `  auth URL:          ${url}`);
  lines.push(`  authorize:         ${url}/oauth/authorize`, `  token:             ${url}/oauth/token`);
  for (const c of config.clients) {
    lines.push(
      `  client id:         ${c.client_id}`,
      `  client secret:     ${c.client_secret}`,
      `  signing secret:    ${c.signing_secrets[c.signing_secrets.length - 1]}`,
      `  redirect URIs:     ${c.redirect_uris.join(" ")}`,
    );
  }
  lines.push(`  workspaces:        ${config.workspaces.map((w) => `${w.id} (${w.name})`).join(", ")}`);
  lines.push(`  state:             ${url}/_emulator/state`);
  return lines.join("\n");
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const config = args.config ? loadConfigFile(args.config) : DEFAULT_CONFIG;
  const running = await startEmulator({ port: args.port, config });
  console.log(describe(running.config, running.url, args.config));
  console.log(`listening on ${running.url}`);
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
