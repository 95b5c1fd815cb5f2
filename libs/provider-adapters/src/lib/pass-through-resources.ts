/**
 * The objects a vendor's API keeps for its caller, as data: which paths hold which kind of object,
 * which requests make one and where their answer names its id, which request fields name one. The
 * gateway's pass-through reads it to keep every project to its own objects; a path it does not
 * describe (and that is no model call) is one the gateway cannot attribute to a project.
 */
export interface PassThroughResources {
  /** Collections of objects a project owns; the longest matching `path` wins. */
  readonly collections: readonly ResourceCollection[];
  /** Requests other than `POST <collection>` that make an object (a thread with its run, a file from a finished upload). */
  readonly creations: readonly ResourceCreation[];
  /**
   * Fields of a JSON request, at any depth, whose string (or list of strings, or `{id}`) names an
   * object of a kind: a request may name only its project's objects (`previous_response_id`,
   * `file_id`, `assistant_id`).
   */
  readonly references: Readonly<Record<string, string>>;
  /** The query parameters of a list's cursors: after the id given, before it (`after`, `after_id`). */
  readonly cursors: { readonly after: string; readonly before: string };
  /** Paths whose requests are multipart forms (uploads), `{}` one segment: their bodies name no object. Every other body is read as JSON. */
  readonly multipart: readonly string[];
  /** Paths that hold no project's data (the model catalogue, token counts): open to every key; their bodies' references are still checked. */
  readonly shared: readonly SharedPath[];
}

/**
 * `path` lists the collection (GET, filtered to the project's objects) and makes one (POST, unless
 * `creates` is false); `path/{id}` and everything below it (`/content`, `/messages/{m}`, `/runs/{r}/steps`)
 * belong to the object `id`.
 */
export interface ResourceCollection {
  /** What the gateway records the objects as (`file`, `message_batch`). */
  readonly kind: string;
  /** Below the vendor's root: `/v1/files`. */
  readonly path: string;
  /** The vendor's words for an id it does not know, `{id}` standing for the id: what another project's key is answered (404). */
  readonly missing: string;
  /** The kind the gateway's own routes (/v1/files…) record the same objects as, under their upstream ids: those are protected alike. */
  readonly nativeKind?: string;
  /** False when a POST to `path` makes no object (it is a model call, or the vendor has no such request). */
  readonly creates?: boolean;
  /** Fields of this collection's answers that name other objects made with it (a batch's `output_file_id` → `file`): they become the same project's. */
  readonly names?: Readonly<Record<string, string>>;
  /**
   * The ids of objects the vendor publishes to every caller (Anthropic's own skills, `pptx`, `xlsx`,
   * while its custom ones are `skill_…`): no project owns them, every key may name them and sees
   * them in lists (the vendor itself refuses changing them).
   */
  readonly published?: RegExp;
  /**
   * Lists paged by a token instead of by ids: the query parameter that asks for the next page and
   * the answer's field that gives it (`page` ← `next_page`); else by `cursors`.
   */
  readonly pageToken?: { readonly query: string; readonly from: string };
}

/** A request that makes an object of `kind`; `{}` in `path` stands for one id segment. */
export interface ResourceCreation {
  readonly method: 'POST';
  readonly path: string;
  readonly kind: string;
  /** Where its answer names the new id (dotted), tried in order; a stream's first event that has one of them counts. */
  readonly idAt: readonly string[];
}

export interface SharedPath {
  readonly method: string;
  /** Below the vendor's root; `{}` stands for one segment. */
  readonly path: string;
}
