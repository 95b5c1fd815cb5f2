/** What a chat tool call is in the Responses API: a function (perhaps in a namespace) or a custom (free-text) tool. */
export interface ResponsesTool {
  name: string;
  namespace?: string;
  custom: boolean;
}

// Chat function names allow [a-zA-Z0-9_-]; a namespace's tools are named `<namespace>__<name>` there.
const SEPARATOR = '__';

/** The chat function name of a Responses tool. */
export function chatToolName(name: string, namespace?: string | null): string {
  return namespace ? `${namespace}${SEPARATOR}${name}` : name;
}

/**
 * The tools a Responses request declares, by the names their calls carry in chat completions:
 * chat has neither namespaces nor custom tools, so the bridge flattens a namespace's tools into
 * `<namespace>__<name>` functions and offers a custom tool as a function taking its text as
 * `input`; this reads a chat tool call back as what the client declared.
 */
export class ToolNames {
  private readonly tools = new Map<string, ResponsesTool>();

  constructor(request: Record<string, unknown>) {
    const tools = Array.isArray(request['tools']) ? (request['tools'] as Record<string, unknown>[]) : [];
    for (const tool of tools) {
      if (tool['type'] === 'namespace' && typeof tool['name'] === 'string') {
        const inner = Array.isArray(tool['tools']) ? (tool['tools'] as Record<string, unknown>[]) : [];
        for (const member of inner) this.add(member, tool['name']);
      } else this.add(tool);
    }
  }

  /** The Responses tool a chat call names (a plain function when the request declared no such tool). */
  of(chatName: string): ResponsesTool {
    return this.tools.get(chatName) ?? { name: chatName, custom: false };
  }

  private add(tool: Record<string, unknown>, namespace?: string): void {
    if (typeof tool['name'] !== 'string' || (tool['type'] !== 'function' && tool['type'] !== 'custom')) return;
    this.tools.set(chatToolName(tool['name'], namespace), { name: tool['name'], custom: tool['type'] === 'custom', ...(namespace ? { namespace } : {}) });
  }
}

/** A custom tool's text as chat function arguments, and back. */
export const customArguments = (input: string): string => JSON.stringify({ input });

export function customInput(args: string): string {
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    if (typeof parsed.input === 'string') return parsed.input;
  } catch {
    // A model that did not answer in the offered shape: its text is the input.
  }
  return args;
}
