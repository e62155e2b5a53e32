// `npm run rotate-key`: re-encrypts every stored secret and token under the current (first) key of ENCRYPTION_KEYS,
// bound to its row (format v2; v1 values written before row binding are rewritten even under the current key).
// Rotation: put the new key first (`new:<base64>,old:<base64>`), restart the app, run this, then drop the old key.
// Prints counts only, never values.
import { errorMessage } from "../app/lib/errors";
import { openDatabase } from "../app/db/connect.server";
import { env } from "../app/env.server";
import { rotateEncryptionKeys } from "../app/crypto/rotate-keys.server";
import { parseKeyring } from "../app/crypto/secret-box.server";

async function main() {
  const config = env();
  const keyring = parseKeyring(config.ENCRYPTION_KEYS);
  const db = openDatabase();
  await db.ready;
  try {
    console.log(`current key: ${keyring.currentId} (keys listed: ${[...keyring.keys.keys()].join(", ")})`);
    const report = await rotateEncryptionKeys(db.prisma, keyring, { log: (line) => console.log(`  ${line}`) });
    const total = Object.values(report.reencrypted).reduce((a, b) => a + b, 0);
    console.log(`re-encrypted ${total} value(s) under "${report.currentKeyId}".`);
    if (report.remaining > 0) {
      console.log(
        `${report.remaining} value(s) are still under another key or not bound to their row (changed during the run, or undecryptable): run again, and keep the old key listed until this says 0.`,
      );
      process.exitCode = 2;
    } else {
      console.log(
        "every stored value uses the current key and is bound to its row: older keys can now be removed from ENCRYPTION_KEYS.",
      );
    }
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  // The message only: a stack trace could echo configuration.
  console.error(`rotate-key failed: ${errorMessage(err)}`);
  process.exitCode = 1;
});
