/**
 * Mermaid's own parser, as GitHub's renderer runs it: the `mermaid` package (a devDependency) in
 * headless Chromium, since it sanitises labels with DOMPurify and so needs a DOM; Node has none.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, dumpDom } from './chromium.js';

export { chromium };

/** The ```mermaid blocks of some markdown, without their fences. */
export function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Mermaid's verdict on each diagram: undefined where it parses, else its error. */
export async function parseMermaid(diagrams: readonly string[]): Promise<(string | undefined)[]> {
  const bundle = pathToFileURL(createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js')).href;
  const dir = await mkdtemp(join(tmpdir(), 'campaign-mermaid-'));
  try {
    const page = join(dir, 'parse.html');
    // The verdicts go into the page as JSON text, escaped so that no diagram can close the element.
    await writeFile(
      page,
      `<!doctype html><html><body><script src="${bundle}"></script><script>
const diagrams = ${JSON.stringify(diagrams).replace(/</g, '\\u003c')};
(async () => {
  const verdicts = [];
  for (const d of diagrams) {
    try { await mermaid.parse(d); verdicts.push(null); } catch (e) { verdicts.push(String(e && e.message || e)); }
  }
  const out = document.createElement('pre');
  out.id = 'verdicts';
  out.textContent = btoa(unescape(encodeURIComponent(JSON.stringify(verdicts))));
  document.body.appendChild(out);
})();
</script></body></html>`,
    );
    const dom = await dumpDom(page, 20_000);
    const found = /<pre id="verdicts">([A-Za-z0-9+/=]*)<\/pre>/.exec(dom);
    if (!found) throw new Error(`mermaid gave no verdicts:\n${dom.slice(0, 2000)}`);
    const verdicts = JSON.parse(Buffer.from(found[1]!, 'base64').toString('utf8')) as (string | null)[];
    return verdicts.map((v) => v ?? undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
