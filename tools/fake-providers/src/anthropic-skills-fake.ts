// Anthropic's Skills API in its wire format (the SDK's `client.skills` and `client.beta.skills`),
// kept in memory; a key and anthropic-version required as for messages (checked by the caller):
//   GET  /v1/skills[?source=custom|anthropic&limit&page]  {data, has_more, next_page}, custom
//                                                        skills newest first, then Anthropic's own
//                                                        (pptx, xlsx, docx, pdf)
//   POST /v1/skills (multipart: files[] under one top-level directory holding SKILL.md, whose
//        frontmatter gives name and description; display_name optional)   a skill and its first version
//   GET, DELETE /v1/skills/{id}                          a skill; deleting one refuses while it has versions
//   GET, POST /v1/skills/{id}/versions                   its versions (the upload's name must stay the same)
//   GET, DELETE /v1/skills/{id}/versions/{version_id}    one version
// An unknown id is Anthropic's 404 (not_found_error, "Skill not found: <id>"); Anthropic's own
// skills cannot be changed (400).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendAnthropicError } from './anthropic-fake.ts';

interface Skill {
  id: string;
  type: 'skill';
  display_name: string;
  latest_version_id: string;
  source: { type: 'custom' | 'anthropic' };
  created_at: string;
  updated_at: string;
}

interface SkillVersion {
  id: string;
  type: 'skill_version';
  skill_id: string;
  name: string;
  description: string;
  created_at: string;
}

const PUBLISHED = [
  ['pptx', 'PowerPoint', 'Create and edit presentations'],
  ['xlsx', 'Excel', 'Create and analyse spreadsheets'],
  ['docx', 'Word', 'Create and edit documents'],
  ['pdf', 'PDF', 'Read, fill and create PDF files'],
] as const;
const skills = new Map<string, Skill>();
const versions = new Map<string, SkillVersion[]>();
for (const [id, name, description] of PUBLISHED) {
  const created = '2025-10-16T00:00:00Z';
  skills.set(id, { id, type: 'skill', display_name: name, latest_version_id: `${id}-v1`, source: { type: 'anthropic' }, created_at: created, updated_at: created });
  versions.set(id, [{ id: `${id}-v1`, type: 'skill_version', skill_id: id, name: id, description, created_at: created }]);
}
let counter = 0;
const nextId = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(counter++).toString(36)}`;

function send(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake${Date.now()}` });
  res.end(JSON.stringify(body));
}

/** A page of `items` as the Skills API pages its lists: `limit` (default 20) from the `page` token on. */
function page<T>(items: T[], query: URLSearchParams): Record<string, unknown> {
  const limit = Math.min(Math.max(Number(query.get('limit') ?? 20) || 20, 1), 100);
  const start = Number(/^page_(\d+)$/.exec(query.get('page') ?? '')?.[1] ?? 0);
  const data = items.slice(start, start + limit);
  const more = start + limit < items.length;
  return { data, has_more: more, next_page: more ? `page_${start + limit}` : null };
}

/** Answers the request when it is one of the Skills API's (true), else leaves it to the caller. */
export function handleSkills(req: IncomingMessage, res: ServerResponse, body: string, path: string, query: URLSearchParams): boolean {
  const method = req.method ?? 'GET';
  const match = /^\/v1\/skills(?:\/([^/]+)(?:\/versions(?:\/([^/]+))?)?)?$/.exec(path);
  if (!match) return false;
  const [, rawId, rawVersion] = match;
  const onVersions = path.includes('/versions');
  if (rawId === undefined) {
    if (method === 'GET') {
      const source = query.get('source');
      const all = [...skills.values()].filter((skill) => !source || skill.source.type === source);
      const custom = all.filter((skill) => skill.source.type === 'custom').reverse();
      send(res, page([...custom, ...all.filter((skill) => skill.source.type !== 'custom')], query));
    } else if (method === 'POST') createSkill(req, res, body);
    else sendAnthropicError(res, 405, 'invalid_request_error', `fake: ${method} /v1/skills is not allowed`);
    return true;
  }
  const id = decodeURIComponent(rawId);
  const skill = skills.get(id);
  if (!skill) {
    sendAnthropicError(res, 404, 'not_found_error', `Skill not found: ${id}`);
    return true;
  }
  const own = versions.get(id) ?? [];
  if (!onVersions) {
    if (method === 'GET') send(res, skill);
    else if (method === 'DELETE') {
      if (skill.source.type !== 'custom') sendAnthropicError(res, 400, 'invalid_request_error', `Skill ${id} is managed by Anthropic and cannot be deleted.`);
      else if (own.length > 0) sendAnthropicError(res, 400, 'invalid_request_error', `Cannot delete skill ${id}: it has ${own.length} version(s). Delete all versions first.`);
      else {
        skills.delete(id);
        versions.delete(id);
        send(res, { id, type: 'skill_deleted' });
      }
    } else sendAnthropicError(res, 405, 'invalid_request_error', `fake: ${method} ${path} is not allowed`);
    return true;
  }
  if (rawVersion === undefined) {
    if (method === 'GET') send(res, page([...own].reverse(), query));
    else if (method === 'POST') {
      if (skill.source.type !== 'custom')
        return answered(() => sendAnthropicError(res, 400, 'invalid_request_error', `Skill ${id} is managed by Anthropic: no version can be added.`));
      const upload = readUpload(req, body);
      if (typeof upload === 'string') return answered(() => sendAnthropicError(res, 400, 'invalid_request_error', upload));
      if (own[0] && upload.name !== own[0].name) {
        return answered(() =>
          sendAnthropicError(res, 400, 'invalid_request_error', `The uploaded skill is named "${upload.name}", but this skill is "${own[0]?.name}": a skill's name cannot change.`),
        );
      }
      const version = newVersion(id, upload);
      own.push(version);
      versions.set(id, own);
      skills.set(id, { ...skill, latest_version_id: version.id, updated_at: version.created_at });
      send(res, version);
    } else sendAnthropicError(res, 405, 'invalid_request_error', `fake: ${method} ${path} is not allowed`);
    return true;
  }
  const versionId = decodeURIComponent(rawVersion);
  const at = own.findIndex((version) => version.id === versionId);
  if (at < 0) sendAnthropicError(res, 404, 'not_found_error', `Skill version not found: ${versionId}`);
  else if (method === 'GET') send(res, own[at]);
  else if (method === 'DELETE' && skill.source.type === 'custom') {
    own.splice(at, 1);
    const latest = own.at(-1);
    skills.set(id, { ...skill, latest_version_id: latest?.id ?? skill.latest_version_id });
    send(res, { id: versionId, type: 'skill_version_deleted' });
  } else sendAnthropicError(res, 400, 'invalid_request_error', `fake: ${method} ${path} is not allowed`);
  return true;
}

function answered(answer: () => void): true {
  answer();
  return true;
}

function createSkill(req: IncomingMessage, res: ServerResponse, body: string): void {
  const upload = readUpload(req, body);
  if (typeof upload === 'string') return sendAnthropicError(res, 400, 'invalid_request_error', upload);
  const id = nextId('skill');
  const version = newVersion(id, upload);
  const skill: Skill = {
    id,
    type: 'skill',
    display_name: upload.displayName ?? upload.name,
    latest_version_id: version.id,
    source: { type: 'custom' },
    created_at: version.created_at,
    updated_at: version.created_at,
  };
  skills.set(id, skill);
  versions.set(id, [version]);
  send(res, skill);
}

function newVersion(skillId: string, upload: { name: string; description: string }): SkillVersion {
  return { id: nextId('skillver'), type: 'skill_version', skill_id: skillId, name: upload.name, description: upload.description, created_at: new Date().toISOString() };
}

/** The skill a multipart upload holds (its SKILL.md's frontmatter), or what is wrong with it, in Anthropic's words. */
function readUpload(req: IncomingMessage, body: string): { name: string; description: string; displayName?: string } | string {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(String(req.headers['content-type'] ?? ''));
  if (!boundary) return 'fake: the request must be multipart/form-data with files[]';
  const parts = body.split(`--${boundary[1] ?? boundary[2]}`).slice(1, -1);
  const files: { filename: string; content: string }[] = [];
  let displayName: string | undefined;
  for (const part of parts) {
    const split = part.indexOf('\r\n\r\n');
    const head = part.slice(0, split);
    const content = part.slice(split + 4).replace(/\r\n$/, '');
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (filename !== undefined && (name === 'files[]' || name === 'files')) files.push({ filename, content });
    else if (name === 'display_name') displayName = content;
  }
  if (files.length === 0) return 'files: at least one file is required';
  const tops = new Set(files.map((file) => file.filename.split('/')[0]));
  const skillFile = files.find((file) => /^[^/]+\/SKILL\.md$/.test(file.filename));
  if (tops.size !== 1 || !skillFile) return 'SKILL.md file must be exactly in the top-level folder.';
  const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(skillFile.content)?.[1] ?? '';
  const field = (key: string) => new RegExp(`^${key}:\\s*(.+)$`, 'm').exec(frontmatter)?.[1]?.trim();
  const name = field('name') ?? String([...tops][0]);
  const description = field('description');
  if (!description) return 'SKILL.md: the frontmatter must have a description.';
  return { name, description, ...(displayName ? { displayName } : {}) };
}
