// What a person sees of a block of text in the panel, measured in the real webview.

import type { Locator } from 'playwright-core';

/**
 * How many lines of its text an element shows (its height over its line height, to a hundredth:
 * a whole number when no line is cut through), and whether it holds more than it shows.
 */
export async function wholeLinesShown(element: Locator): Promise<{ lines: number; clamped: boolean }> {
  return element.evaluate((node) => {
    const lineHeight = parseFloat(node.ownerDocument.defaultView!.getComputedStyle(node).lineHeight);
    // The box's own height, not clientHeight: that is rounded to a whole pixel, and a line is not.
    const height = node.getBoundingClientRect().height;
    return { lines: Math.round((height / lineHeight) * 100) / 100, clamped: node.scrollHeight > node.clientHeight + 1 };
  });
}

/** Whether a result's location line takes one line, and its line range is inside the panel, not cut off past its edge. */
export async function rangeInView(where: Locator): Promise<{ oneLine: boolean; rangeShown: boolean }> {
  const [line, range] = await Promise.all([where.boundingBox(), where.locator('.range').boundingBox()]);
  if (!line || !range) return { oneLine: false, rangeShown: false };
  return { oneLine: line.height < range.height * 1.5, rangeShown: range.x >= line.x && range.x + range.width <= line.x + line.width + 0.5 };
}
