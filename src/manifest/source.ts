/** Maps a path inside the parsed manifest back to its line and column in the YAML text. */
import { isMap, isNode, isPair, isScalar, LineCounter, type Document } from 'yaml';
import type { Position } from '../errors.js';

export type Path = readonly (string | number)[];

export class SourceMap {
  constructor(
    readonly file: string,
    readonly text: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** The position of an offset in the text. */
  offset(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { file: this.file, line, column: col };
  }

  /**
   * Where the value at `path` starts; for a missing path, the nearest existing parent.
   * With `key`, where the key of the last path element starts (for unknown keys).
   */
  at(path: Path, opts: { key?: boolean } = {}): Position {
    for (let n = path.length; n >= 0; n--) {
      const range = this.range(path.slice(0, n), opts.key === true && n === path.length);
      if (range) return this.offset(range[0]);
    }
    return { file: this.file, line: 1, column: 1 };
  }

  /**
   * Where `needle` appears inside the source of the value at `path` (for a template
   * variable inside a multi-line command), its `nth` appearance from 0; the value's own
   * position when not found.
   */
  within(path: Path, needle: string, nth = 0): Position {
    const range = this.range(path, false);
    if (!range) return this.at(path);
    const value = this.text.slice(range[0], range[1]);
    let i = value.indexOf(needle);
    for (let k = 0; k < nth && i >= 0; k++) i = value.indexOf(needle, i + 1);
    if (i < 0) i = value.indexOf(needle);
    return this.offset(i >= 0 ? range[0] + i : range[0]);
  }

  private range(path: Path, key: boolean): [number, number] | undefined {
    if (!key) {
      const node: unknown = this.doc.getIn(path as unknown[], true);
      return isNode(node) && node.range ? [node.range[0], node.range[1]] : undefined;
    }
    const parent: unknown = path.length > 1 ? this.doc.getIn(path.slice(0, -1) as unknown[], true) : this.doc.contents;
    if (!isMap(parent)) return undefined;
    for (const item of parent.items) {
      if (isPair(item) && isScalar(item.key) && String(item.key.value) === String(path[path.length - 1])) {
        const r = item.key.range;
        return r ? [r[0], r[1]] : undefined;
      }
    }
    return undefined;
  }
}
