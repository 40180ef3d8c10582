// What the browser tests share: Debian's Chromium launched headless by
// playwright-core, a list of broken expectations, and the steps both the
// chat page and the console take (counting a streaming answer's
// renderings, finding a frame, stopping an answer with Escape, reading
// the first tokens' frame-to-paint measures).

import { chromium } from "playwright-core";

/** Chromium as the contract runs it (publishing.md "Acceptance"). */
export function launch() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage", "--disable-gpu"],
  });
}

/** Broken expectations, printed at the end with what was seen. */
export class Expectations {
  failures = [];
  seen = {};

  expect(ok, what) {
    if (!ok) this.failures.push(what);
  }

  /** Prints `{seen, failures}` and exits 1 if anything broke. */
  finish() {
    console.log(JSON.stringify({ seen: this.seen, failures: this.failures }));
    process.exit(this.failures.length === 0 ? 0 : 1);
  }
}

/** Counts the streaming bubble's renderings in `target` (a page or frame). */
export async function countRenderings(target) {
  await target.evaluate(() => {
    window.__renderings = 0;
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.target.closest?.('.message.assistant[aria-busy="true"]')) window.__renderings += 1;
      }
    }).observe(document.querySelector(".transcript"), { childList: true, subtree: true });
  });
}

/** The renderings counted since `countRenderings`. */
export function renderings(target) {
  return target.evaluate(() => window.__renderings);
}

/** The frame of `page` whose URL contains `part`, waited for up to 10 s. */
export async function findFrame(page, part) {
  for (let i = 0; i < 100; i += 1) {
    const found = page.frames().find((f) => f.url().includes(part));
    if (found) return found;
    await page.waitForTimeout(100);
  }
  return null;
}

/** Sends a 40-word message, presses Escape after 3 words, and answers how
 * many words the stopped answer kept (`answers`: the finished answers'
 * selector; `nth`: this answer's index among them). */
export async function stopWithEscape(page, answers, nth) {
  const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
  await page.fill("#message", long);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => {
    const live = document.querySelector('.message.assistant[aria-busy="true"] .body');
    return live && live.textContent.split(" ").length >= 3;
  });
  await page.keyboard.press("Escape");
  await page.waitForFunction(
    ([selector, count]) => document.querySelectorAll(`${selector}[aria-busy="false"]`).length === count,
    [answers, nth + 1],
    { timeout: 20000 },
  );
  const stopped = await page.$$eval(`${answers} .body`, (els, i) => els[i]?.textContent ?? "", nth);
  return stopped.trim().split(" ").length;
}

/** Each answer's first-token frame-to-paint time (ms), as the page measured it. */
export function firstTokenPaints(page) {
  return page.evaluate(() =>
    performance.getEntriesByName("confer:first-token-paint").map((e) => Math.round(e.duration * 10) / 10),
  );
}
