// Parsing a file's or a stream's text as JSON without an exception: every reader of our formats
// (manifest, declarations, records on stdin) reports "not JSON" as data, with the parser's words.

/** The parsed value, or why the text is not JSON. */
export type JsonText = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/** Parses `text` as JSON. Never throws. */
export function parseJsonText(text: string): JsonText {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
