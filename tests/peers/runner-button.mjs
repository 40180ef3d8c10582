// Drives Debian's Chromium (headless, playwright-core) through a runner's
// button page embedded by its snippet (runners.md "Acceptance" 7): an
// allowed origin embeds it; the fields follow the input schema; a
// suggestion fills them; submit streams the echo in several renderings; a
// `<script>` in the input shows as text; a denied origin cannot frame it.
// The required fields lead, the rest by name.
// Usage:
//   node runner-button.mjs BASE RUNNER_ID ARTIFACTS_DIR HOST_PORT
// HOST_PORT: where this script serves the host page, as
// http://allowed.localhost:HOST_PORT (on the button's list) and
// http://denied.localhost:HOST_PORT (not on it). Prints one JSON object of
// what it saw; exits 1 on a broken expectation.

import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { Expectations, findFrame, launch } from "./browser-kit.mjs";

const [base, runner, artifacts, hostPort] = process.argv.slice(2);
mkdirSync(artifacts, { recursive: true });
const run = new Expectations();
const { seen } = run;
const expect = run.expect.bind(run);

const host = createServer((request, response) => {
  response.setHeader("content-type", "text/html; charset=utf-8");
  response.end(
    `<!doctype html><html><body><h1>Host</h1><script async src="${base}/api/runners/${runner}/embed.js" data-open="true"></script></body></html>`,
  );
});
await new Promise((ready) => host.listen(Number(hostPort), "127.0.0.1", ready));
const browser = await launch();
try {
  const allowed = await browser.newPage();
  const violations = [];
  allowed.on("console", (message) => {
    if (/trusted type|content security policy/i.test(message.text())) violations.push(message.text());
  });
  await allowed.goto(`http://allowed.localhost:${hostPort}/`);
  const frame = await findFrame(allowed, `/api/runners/${runner}/button?embed=1`);
  expect(frame !== null, "the launcher opened the button's frame");
  if (frame) {
    await frame.waitForSelector(".run-form .field", { timeout: 10000 });
    seen.title = await frame.textContent(".title");
    seen.fields = await frame.$$eval(".field", (fields) =>
      fields.map((f) => {
        const control = f.querySelector("input, select, textarea");
        return {
          label: f.querySelector("label")?.textContent,
          tag: control?.tagName.toLowerCase(),
          type: control?.getAttribute("type"),
          options: control?.tagName === "SELECT" ? [...control.options].map((o) => o.value) : undefined,
        };
      }),
    );
    const shape = seen.fields.map((f) => `${f.tag}:${f.type ?? ""}`).join(",");
    expect(
      shape === "input:text,input:number,input:checkbox,textarea:,select:",
      `the fields follow the schema (${shape})`,
    );
    expect(seen.fields[0]?.label === "Topic *", `a required field is marked (${seen.fields[0]?.label})`);
    expect(seen.fields[4]?.options?.join() === ",plain,fun", "the enum's options");

    // A suggestion fills the form.
    await frame.click(".suggestions button");
    seen.filled = {
      topic: await frame.inputValue('[name="topic"]'),
      tone: await frame.inputValue('[name="tone"]'),
      detailed: await frame.isChecked('[name="detailed"]'),
      count: await frame.inputValue('[name="count"]'),
      extra: await frame.inputValue('[name="extra"]'),
    };
    expect(seen.filled.topic.includes("<script>"), "the suggestion filled the topic");
    expect(seen.filled.tone === "fun" && seen.filled.detailed && seen.filled.count === "3", "and the rest");

    // Submit: the echo streams into the output in several renderings.
    await frame.evaluate(() => {
      window.__renderings = 0;
      new MutationObserver(() => {
        if (document.querySelector('.output[aria-busy="true"]')) window.__renderings += 1;
      }).observe(document.querySelector(".output .body"), { childList: true, subtree: true });
    });
    await frame.click(".submit");
    await frame.waitForSelector('.output[aria-busy="false"]', { timeout: 30000 });
    seen.renderings = await frame.evaluate(() => window.__renderings);
    expect(seen.renderings >= 3, `the answer streamed (${seen.renderings} renderings)`);
    seen.status = await frame.textContent(".status");
    expect(seen.status === "Done.", `the run succeeded (${seen.status})`);
    seen.output = await frame.textContent(".output .body");
    expect(
      seen.output?.includes("<script>window.__pwned=1</script> tides"),
      `the <script> shows as text (${seen.output})`,
    );
    expect((await frame.$$(".output script")).length === 0, "no script element in the output");
    expect((await frame.evaluate(() => window.__pwned)) === undefined, "the script never ran");
    expect(violations.length === 0, `no policy violation (${violations})`);
  }
  await allowed.screenshot({ path: join(artifacts, "button-embed-open.png") });

  const denied = await browser.newPage();
  const refused = [];
  denied.on("console", (message) => {
    if (message.text().includes("frame-ancestors")) refused.push(message.text());
  });
  await denied.goto(`http://denied.localhost:${hostPort}/`);
  const deniedFrame = await findFrame(denied, `/api/runners/${runner}/button`);
  await denied.waitForTimeout(1500);
  expect(refused.length > 0, "a frame-ancestors violation is logged");
  const form = deniedFrame ? await deniedFrame.$(".run-form").catch(() => null) : null;
  expect(form === null, "the denied frame shows no form");
  await denied.screenshot({ path: join(artifacts, "button-embed-denied.png") });
} finally {
  await browser.close();
  host.close();
}
run.finish();
