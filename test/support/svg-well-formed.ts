/**
 * Parse-free well-formedness check: every tag is closed in order, attribute
 * values are quoted, and text holds no raw '<' or bare '&'. Returns the
 * element names seen, in order.
 */
export function checkWellFormed(svg: string): string[] {
  const stack: string[] = [];
  const seen: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < svg.length) {
    const lt = svg.indexOf('<', i);
    const text = svg.slice(i, lt === -1 ? svg.length : lt);
    if (/&(?!(amp|lt|gt|quot|#39);)/.test(text)) throw new Error(`bare & in text: ${text}`);
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(svg);
    if (!m) throw new Error(`malformed tag at ${lt}: ${svg.slice(lt, lt + 60)}`);
    const [, closing, name, , selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}>`);
    } else {
      seen.push(name);
      if (!selfClosing) stack.push(name);
    }
    i = tag.lastIndex;
  }
  if (stack.length) throw new Error(`unclosed: ${stack.join(', ')}`);
  return seen;
}
