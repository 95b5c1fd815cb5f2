import type { ScalarTag, Tags } from 'yaml';

const BOOL = 'tag:yaml.org,2002:bool';
const FLOAT = 'tag:yaml.org,2002:float';
const TIMESTAMP = 'tag:yaml.org,2002:timestamp';

// PyYAML's booleans: yes/no/true/false/on/off; never y/n (so a key `n`, OpenAI's parameter, stays `n`).
const pyYamlTrue: ScalarTag = {
  tag: BOOL,
  default: true,
  test: /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
  resolve: () => true,
};
const pyYamlFalse: ScalarTag = {
  tag: BOOL,
  default: true,
  test: /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  resolve: () => false,
};
// PyYAML's exponent floats need a dot and a signed exponent (`1.5e+3`); `1e3` stays a string there.
const pyYamlExponent: ScalarTag = {
  tag: FLOAT,
  default: true,
  format: 'EXP',
  test: /^[-+]?[0-9][0-9_]*\.[0-9_]*[eE][-+][0-9]+$/,
  resolve: (text) => parseFloat(text.replace(/_/g, '')),
};

/**
 * The YAML 1.1 scalars as LiteLLM's parser (PyYAML's safe_load) reads them: `80_000` is 80000,
 * `yes`/`on` are true, `0x1F` and `010` are numbers; `y`/`n` stay strings and dates stay text,
 * which is where the `yaml` package's own 1.1 schema differs from PyYAML.
 */
export function pyYamlTags(tags: Tags): Tags {
  const kept = tags.filter((tag) => typeof tag === 'string' || (tag.tag !== BOOL && tag.tag !== TIMESTAMP && !(tag.tag === FLOAT && (tag as ScalarTag).format === 'EXP')));
  return [...kept, pyYamlTrue, pyYamlFalse, pyYamlExponent];
}
