// The demo's log file, written so that a full disk (or any failing write) is an outage of the log, never of the
// demo: each line is written at once (a synchronous append: a stream would turn ENOSPC into an `error` event, and
// an unhandled one ends the process, with every child of the demo); a line that cannot be written is counted and
// dropped; the file is opened again a moment later, and the first line written after a spell says how many were
// dropped. The terminal hears once when dropping starts and once when it ends.
import { closeSync, openSync, writeSync } from "node:fs";

export class LogFile {
  private fd: number | null = null;
  private retryAt = 0;
  /** Lines dropped since the last one written. */
  private droppedNow = 0;
  private droppedEver = 0;

  constructor(
    readonly path: string,
    /** Told when dropping starts and when it ends (the demo: the terminal's stderr). */
    private readonly notice: (message: string) => void = () => {},
    private readonly retryMs = 1_000,
  ) {}

  /** Lines dropped since the log was opened. */
  get dropped(): number {
    return this.droppedEver;
  }

  /** Appends `text` (whole lines); never throws. */
  write(text: string): void {
    const lines = text.split("\n").length - 1 || 1;
    try {
      if (this.fd === null) {
        if (Date.now() < this.retryAt) return this.drop(lines);
        this.fd = openSync(this.path, "a");
      }
      if (this.droppedNow > 0) {
        writeAll(this.fd, `[demo] ${this.droppedNow} log lines dropped: the log file could not be written\n`);
        this.notice(`The demo's log file is written again (${this.droppedNow} lines were dropped).`);
        this.droppedNow = 0;
      }
      writeAll(this.fd, text);
    } catch (error) {
      if (this.droppedNow === 0) {
        const code = (error as NodeJS.ErrnoException).code ?? "error";
        this.notice(`The demo's log file cannot be written (${code}): dropping log lines until it can.`);
      }
      this.closeFd();
      this.retryAt = Date.now() + this.retryMs;
      this.drop(lines);
    }
  }

  close(): void {
    this.closeFd();
  }

  private drop(lines: number) {
    this.droppedNow += lines;
    this.droppedEver += lines;
  }

  private closeFd() {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // already unusable
    }
    this.fd = null;
  }
}

function writeAll(fd: number, text: string) {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
}
