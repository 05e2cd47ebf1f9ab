// The one way an error becomes a sentence for a log line, a notice or a tool's answer: an Error
// says its message (not its stack, which is for FUSED_SEARCH_DEBUG), anything else thrown says
// what it is.

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
