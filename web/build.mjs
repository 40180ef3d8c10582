// Builds web/dist/ (publishing.md "Build"): the chat page's and the
// console's scripts and styles named by their content hash and loaded with
// Subresource Integrity, the pages themselves, and embed.js (one name: its URL is in hosts' pages).
// Unminified and committed, so `cargo build` needs no Node. `--check`
// builds into a temporary directory and fails when dist/ differs.

import { createHash } from "node:crypto";
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes("--check");

async function bundle(entry) {
  const result = await build({
    entryPoints: [join(here, entry)],
    bundle: true,
    format: "iife",
    target: "es2020",
    minify: false,
    legalComments: "none",
    write: false,
    charset: "utf8",
  });
  return result.outputFiles[0].contents;
}

function hashed(stem, ext, bytes) {
  const digest = createHash("sha256").update(bytes).digest();
  return {
    name: `${stem}.${digest.toString("hex").slice(0, 10)}.${ext}`,
    integrity: `sha256-${digest.toString("base64")}`,
    bytes,
  };
}

/** A page and its hashed script and style: `src/{stem}/{stem}.html` with
 * `{{stem.js}}`, `{{stem.css}}` and their `.integrity` filled in. */
async function page(files, stem) {
  const js = hashed(stem, "js", await bundle(`src/${stem}/main.ts`));
  const css = hashed(stem, "css", readFileSync(join(here, `src/${stem}/${stem}.css`)));
  for (const asset of [js, css]) files.set(asset.name, asset.bytes);
  const html = readFileSync(join(here, `src/${stem}/${stem}.html`), "utf8")
    .replaceAll(`{{${stem}.js}}`, js.name)
    .replaceAll(`{{${stem}.js.integrity}}`, js.integrity)
    .replaceAll(`{{${stem}.css}}`, css.name)
    .replaceAll(`{{${stem}.css.integrity}}`, css.integrity);
  files.set(`${stem}.html`, Buffer.from(html));
}

async function produce() {
  const files = new Map();
  await page(files, "chat");
  await page(files, "console");
  await page(files, "button");
  files.set("embed.js", Buffer.from(await bundle("src/embed/embed.ts")));
  return files;
}

function write(dir, files) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
}

const files = await produce();
const dist = join(here, "dist");
if (check) {
  const fresh = mkdtempSync(join(tmpdir(), "confer-web-"));
  write(fresh, files);
  const listed = (dir) => readdirSync(dir).sort();
  let differs = listed(fresh).join() !== listed(dist).join();
  for (const name of listed(fresh)) {
    if (differs) break;
    differs = !readFileSync(join(fresh, name)).equals(readFileSync(join(dist, name)));
  }
  rmSync(fresh, { recursive: true, force: true });
  if (differs) {
    console.error("web/dist is not the build of web/src: run `node web/build.mjs`");
    process.exit(1);
  }
  console.log("web/dist is up to date");
} else {
  write(dist, files);
  for (const name of files.keys()) console.log(`web/dist/${name}`);
}
