// The demo's log file on a full disk (the fourth security review, finding 5): the demo's runner wrote its log
// through a stream, whose ENOSPC became an unhandled `error` event and ended the runner with every process of the
// demo. Here a real ENOSPC from the kernel: the log path is a symbolic link to /dev/full (every write fails with
// ENOSPC, no privileges needed), then to a real file once "space is back".
import { mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { LogFile } from "../dev/demo/log-file";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("drops and counts lines while the disk is full, never throws, and writes again once there is space", async () => {
  dir = mkdtempSync(path.join(tmpdir(), "demo-log-"));
  const link = path.join(dir, "demo.log");
  const real = path.join(dir, "real.log");
  symlinkSync("/dev/full", link);
  const notices: string[] = [];
  const log = new LogFile(link, (message) => notices.push(message), 100);
  for (let i = 0; i < 50; i++) expect(() => log.write(`line ${i}\n`)).not.toThrow();
  expect(log.dropped).toBe(50);
  expect(notices).toEqual([expect.stringContaining("cannot be written (ENOSPC)")]);
  // Space back: the same path now leads to a file that takes writes.
  unlinkSync(link);
  symlinkSync(real, link);
  await new Promise((resolve) => setTimeout(resolve, 150));
  log.write("line 50\n");
  log.write("line 51\n");
  log.close();
  expect(readFileSync(real, "utf8")).toBe(
    "[demo] 50 log lines dropped: the log file could not be written\nline 50\nline 51\n",
  );
  expect(log.dropped).toBe(50);
  expect(notices[1]).toMatch(/written again \(50 lines were dropped\)/);
});
