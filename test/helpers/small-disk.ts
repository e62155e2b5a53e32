// A small disk of a test's own, to fill and free (the full-disk tests): a tmpfs mounted on a fresh directory.
// Mounting needs root (these machines and the CI run tests as root). Elsewhere run the test under a user and mount
// namespace of its own: `unshare --user --map-root-user --mount npx vitest run <file>`.
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Mounts a tmpfs of `size` (e.g. "160m") on a fresh directory and returns it. */
export function mountSmallDisk(size: string, prefix = "full-disk-"): string {
  const mount = mkdtempSync(path.join(tmpdir(), prefix));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", mount], { stdio: "pipe" });
  } catch (error) {
    rmSync(mount, { recursive: true, force: true });
    throw new Error(
      `could not mount a small disk at ${mount} (needs root, or run under unshare; see test/helpers/small-disk.ts): ${error}`,
    );
  }
  return mount;
}

/** Unmounts (if mounted) and deletes the directory. */
export function removeSmallDisk(mount: string): void {
  try {
    execFileSync("umount", [mount], { stdio: "pipe" });
  } catch {
    // never mounted
  }
  rmSync(mount, { recursive: true, force: true });
}

/** Writes zeros to `file` until the disk says ENOSPC. */
export function fillDisk(file: string): void {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(1024 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
}
