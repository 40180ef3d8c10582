// Builds web/dist/ (publishing.md "Build"): the chat page's script and
// style named by their content hash and loaded with Subresource Integrity,
// the page itself, and embed.js (one name: its URL is in hosts' pages).
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

async function produce() {
  const files = new Map();
  const chatJs = hashed("chat", "js", await bundle("src/chat/main.ts"));
  const chatCss = hashed("chat", "css", readFileSync(join(here, "src/chat/chat.css")));
  for (const asset of [chatJs, chatCss]) files.set(asset.name, asset.bytes);
  const page = readFileSync(join(here, "src/chat/chat.html"), "utf8")
    .replaceAll("{{chat.js}}", chatJs.name)
    .replaceAll("{{chat.js.integrity}}", chatJs.integrity)
    .replaceAll("{{chat.css}}", chatCss.name)
    .replaceAll("{{chat.css.integrity}}", chatCss.integrity);
  files.set("chat.html", Buffer.from(page));
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
