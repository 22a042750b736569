/** The README's example plays a whole game against a real referee. */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Referee } from "./referee.js";

let referee: Referee;

before(async () => {
  referee = await Referee.start();
});

after(async () => {
  await referee.stop();
});

test("examples/play.ts plays a game to its end and watches all of it", async () => {
  const script = join(dirname(fileURLToPath(import.meta.url)), "../examples/play.js");
  const { stdout } = await promisify(execFile)(process.execPath, [script, referee.httpUrl], { timeout: 60_000 });
  assert.match(stdout, /^game over at version (\d+): scores \d+ - \d+$/m);
  const events = /the spectator saw (\d+) events/.exec(stdout);
  assert.ok(events && Number(events[1]) > 10, stdout);
});
