// Drives Debian's Chromium (headless, playwright-core) through the public
// chat page, as a visitor would (publishing.md "Acceptance" 1, 4, 5 in
// part): keyboard only, an answer streamed in several renderings, hostile
// Markdown echoed back, a phone's 320 px. Usage:
//   node chat-page.mjs BASE SLUG ARTIFACTS_DIR
// Prints one JSON object of what it saw; exits 1 on a broken expectation.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [base, slug, artifacts] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const failures = [];
const expect = (ok, what) => {
  if (!ok) failures.push(what);
};

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage", "--disable-gpu"],
});
const seen = {};
try {
  const page = await browser.newPage();
  const dialogs = [];
  const violations = [];
  const foreign = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("console", (message) => {
    if (/trusted type|content security policy/i.test(message.text())) violations.push(message.text());
  });
  page.on("request", (request) => {
    if (!request.url().startsWith(base)) foreign.push(request.url());
  });
  await page.goto(`${base}/c/${slug}`);
  await page.waitForSelector(".message.greeting");

  // Keyboard only: Tab to the message box, type, Enter sends.
  for (let i = 0; i < 10; i += 1) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(() => document.activeElement?.id === "message")) break;
  }
  expect(await page.evaluate(() => document.activeElement?.id === "message"), "Tab reaches the message box");
  // Count the streaming bubble's renderings until it is done.
  await page.evaluate(() => {
    window.__renderings = 0;
    new MutationObserver((records) => {
      for (const record of records) {
        const bubble = record.target.closest?.('.message.assistant[aria-busy="true"]');
        if (bubble) window.__renderings += 1;
      }
    }).observe(document.querySelector(".transcript"), { childList: true, subtree: true });
  });
  const words = "one two three four five six seven eight";
  await page.keyboard.type(words);
  await page.keyboard.press("Enter");
  await page.waitForSelector('.message.assistant[aria-busy="false"]:not(.greeting)', { timeout: 20000 });
  seen.renderings = await page.evaluate(() => window.__renderings);
  expect(seen.renderings >= 3, `at least 3 partial renderings (saw ${seen.renderings})`);
  seen.answer = await page.textContent(".message.assistant:not(.greeting) .body");
  expect(seen.answer?.trim() === words, `the answer is the echo (${seen.answer})`);

  // Hostile Markdown, echoed back by builtin/echo.
  const hostile =
    "<img src=x onerror=alert(1)> <script>alert(2)</script> [x](javascript:alert(3)) ![i](http://h.invalid/i.png)";
  await page.fill("#message", hostile);
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    () => document.querySelectorAll('.message.assistant[aria-busy="false"]:not(.greeting)').length >= 2,
    null,
    { timeout: 20000 },
  );
  seen.images = await page.$$eval(".transcript img", (els) => els.length);
  seen.scripts = await page.$$eval(".transcript script", (els) => els.length);
  seen.javascriptLinks = await page.$$eval("a", (els) => els.filter((a) => a.href.startsWith("javascript")).length);
  expect(seen.images === 0, "no img element");
  expect(seen.scripts === 0, "no script element");
  expect(seen.javascriptLinks === 0, "no javascript: href");
  expect(dialogs.length === 0, `no dialog (${dialogs})`);
  expect(violations.length === 0, `no CSP or Trusted Types violation (${violations})`);
  expect(foreign.length === 0, `no request off Confer (${foreign})`);

  // A phone: no horizontal scroll at 320 px.
  await page.setViewportSize({ width: 320, height: 640 });
  const [scroll, client] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    document.documentElement.clientWidth,
  ]);
  seen.width320 = { scroll, client };
  expect(scroll <= client, `no horizontal scroll at 320 px (${scroll} > ${client})`);
  await page.screenshot({ path: join(artifacts, "phone-320.png") });
} finally {
  await browser.close();
}
console.log(JSON.stringify({ seen, failures }));
process.exit(failures.length === 0 ? 0 : 1);
