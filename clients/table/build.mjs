// Bundles the table into the static files the referee serves (index.html, app.js, app.css), in
// the Python package by default, or in the folder given with --outdir. The output depends on the
// sources and the pinned esbuild alone, so a rebuild of unchanged sources changes no byte (the
// Python tests check it: tests/service/test_table_files.py).
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const flag = process.argv.indexOf("--outdir");
const outdir = resolve(
  flag >= 0 ? process.argv[flag + 1] : join(here, "../../service/hanafuda_referee/http/table"),
);

await mkdir(outdir, { recursive: true });
await build({
  entryPoints: [join(here, "src/main.ts")],
  outfile: join(outdir, "app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  legalComments: "none",
  charset: "utf8",
  tsconfig: join(here, "tsconfig.json"),
  logLevel: "warning",
});
for (const file of ["index.html", "app.css"]) {
  await copyFile(join(here, "static", file), join(outdir, file));
}
console.log(`built ${outdir}`);
