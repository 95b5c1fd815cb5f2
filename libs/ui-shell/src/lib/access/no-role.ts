/** What a role on a project would let the person do on a page, in the page's words ("see its keys and spend"). */
export interface RoleNeed {
  /** What `<product>.viewer` lets them do here. */
  read: string;
  /** What `<product>.operator` lets them do besides; without it, either role does what `read` says. */
  change?: string;
}

/** A piece of the sentence: plain words, or a permission key (shown as code). */
export type NoRolePart = string | { key: string };

export interface NoRoleMessage {
  title: string;
  body: NoRolePart[];
}

/**
 * What a person with no role of `product` (its key and title, as ShellProduct) on any project is told instead of an error: which role,
 * on a project, would let them in, and that it counts only with the product's sign-in key.
 */
export function noRoleMessage(product: { key: string; title: string }, need: RoleNeed): NoRoleMessage {
  const viewer = { key: `${product.key}.viewer` };
  const operator = { key: `${product.key}.operator` };
  const roles: NoRolePart[] = need.change
    ? [viewer, ` on a project to ${need.read}, or `, operator, ` to ${need.change}`]
    : [viewer, ' or ', operator, ` on a project to ${need.read}`];
  return {
    title: `No ${product.title} role on any project`,
    body: ['Ask a control-plane administrator for ', ...roles, ', together with the sign-in key ', { key: product.key }, '.'],
  };
}

/** The body as one plain sentence. */
export function noRoleText(message: NoRoleMessage): string {
  return message.body.map((part) => (typeof part === 'string' ? part : part.key)).join('');
}
