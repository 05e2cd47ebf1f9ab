// Shared by the quick pick and the webview (which bundles it), so it imports nothing.

/** The query with each corrected word replaced where it stands as a whole word. */
export function correctedQuery(query: string, corrections: Array<[string, string]>): string {
  let out = query;
  for (const [typed, fixed] of corrections) {
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}_])${typed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}_])`, 'giu'), fixed);
  }
  return out;
}
