import { Button, Group, MultiSelect, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { fieldError, FormErrorAlert } from '@arbor/ui-shell';
import { useState, type FormEvent } from 'react';
import { type CatalogueItem, isAgentSelection, type Selection, type ServerBody, type Upstream, type VirtualServer } from '../api/mcp-gateway-api';
import { exposedTools } from './exposed-tools';
import { useSaveServer } from './servers-queries';
import { toolAccessBody, ToolAccessFields, toolAccessOf, type ToolAccessDraft } from './tool-access-fields';

const FIELDS = ['id', 'project', 'name', 'description', 'upstreams', 'tool_roles', 'tool_rate_limits'] as const;

/** A server's tools from each upstream it draws on: all of them, or the ones chosen. */
type ToolChoice = '*' | string[];

interface ServerDraft {
  id: string;
  project: string | null;
  name: string;
  description: string;
  tools: Record<string, ToolChoice>;
  access: ToolAccessDraft;
}

const upstreamSelections = (server: VirtualServer): Selection[] => server.upstreams.filter((selection): selection is Selection => !isAgentSelection(selection));

function draftOf(server: VirtualServer | null, project: string | null): ServerDraft {
  if (!server) return { id: '', project, name: '', description: '', tools: {}, access: toolAccessOf(null) };
  return {
    id: server.id,
    project: server.project,
    name: server.name,
    description: server.description ?? '',
    tools: Object.fromEntries(upstreamSelections(server).map((selection) => [selection.upstream, selection.tools])),
    access: toolAccessOf(server),
  };
}

/**
 * Composes a virtual server from upstreams, whole or some of their tools (resources and prompts kept
 * as they were, all by default), and says who may call each tool and how often.
 */
export function ServerForm(props: {
  server: VirtualServer | null;
  projects: string[];
  defaultProject: string | null;
  upstreams: Upstream[];
  catalogue: CatalogueItem[];
  onDone(): void;
}) {
  const { server, projects, upstreams, catalogue, onDone } = props;
  const [draft, setDraft] = useState<ServerDraft>(() => draftOf(server, props.defaultProject));
  const save = useSaveServer();
  const chosen = Object.keys(draft.tools);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const previous = new Map(server ? upstreamSelections(server).map((selection) => [selection.upstream, selection]) : []);
    const body: ServerBody = {
      ...(server ? {} : { id: draft.id.trim() }),
      project: draft.project ?? undefined,
      name: draft.name.trim() || (server ? server.name : draft.id.trim()),
      description: draft.description.trim() || null,
      // The agents it offers stay as they are: this form composes upstreams.
      upstreams: [...chosen.map((upstream) => ({ ...previous.get(upstream), upstream, tools: draft.tools[upstream] })), ...(server?.upstreams.filter(isAgentSelection) ?? [])],
      ...toolAccessBody(draft.access),
    };
    save.mutate({ id: server?.id ?? null, body }, { onSuccess: onDone });
  };
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-label={server ? `Settings of ${server.id}` : 'New virtual server'}>
      <Stack>
        <Title order={3} size="h4">
          {server ? `Edit ${server.id}` : 'New virtual server'}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label="Id"
            description="In its address: /servers/<id>/mcp"
            required
            disabled={server !== null}
            value={draft.id}
            onChange={(event) => setDraft({ ...draft, id: event.currentTarget.value })}
            error={fieldError(save.error, 'id')}
          />
          <Select
            label="Project"
            data={projects}
            value={draft.project}
            onChange={(project) => setDraft({ ...draft, project })}
            allowDeselect={false}
            error={fieldError(save.error, 'project')}
          />
          <TextInput label="Name" value={draft.name} onChange={(event) => setDraft({ ...draft, name: event.currentTarget.value })} error={fieldError(save.error, 'name')} />
          <Textarea
            label="Description"
            autosize
            value={draft.description}
            onChange={(event) => setDraft({ ...draft, description: event.currentTarget.value })}
            error={fieldError(save.error, 'description')}
          />
        </SimpleGrid>
        <MultiSelect
          label="Upstreams"
          description="The tool servers it draws on"
          data={upstreams.map((upstream) => upstream.name)}
          value={chosen}
          onChange={(names) => setDraft({ ...draft, tools: Object.fromEntries(names.map((name) => [name, draft.tools[name] ?? '*'])) })}
          error={fieldError(save.error, 'upstreams')}
          searchable
        />
        {chosen.map((upstream) => {
          const choice = draft.tools[upstream];
          const offered = catalogue.filter((item) => item.upstream === upstream && item.kind === 'tool').map((item) => item.name);
          return (
            <Group key={upstream} align="end" data-upstream={upstream}>
              <Text fw={600} w={160}>
                {upstream}
              </Text>
              <SegmentedControl
                aria-label={`Tools of ${upstream}`}
                data={[
                  { value: 'all', label: 'All its tools' },
                  { value: 'some', label: 'Chosen tools' },
                ]}
                value={choice === '*' ? 'all' : 'some'}
                onChange={(value) => setDraft({ ...draft, tools: { ...draft.tools, [upstream]: value === 'all' ? '*' : [] } })}
              />
              {choice !== '*' && (
                <MultiSelect
                  label={`Tools of ${upstream} it exposes`}
                  data={[...new Set([...offered, ...choice])]}
                  value={choice}
                  onChange={(tools) => setDraft({ ...draft, tools: { ...draft.tools, [upstream]: tools } })}
                  searchable
                  w={360}
                />
              )}
            </Group>
          );
        })}
        <ToolAccessFields
          tools={exposedTools(draft.tools, catalogue)}
          draft={draft.access}
          onChange={(access) => setDraft({ ...draft, access })}
          error={fieldError(save.error, 'tool_roles') ?? fieldError(save.error, 'tool_rate_limits')}
        />
        <FormErrorAlert error={save.error} fields={FIELDS} />
        <Group>
          <Button type="submit" loading={save.isPending} disabled={!draft.project || (!server && draft.id.trim() === '')}>
            {server ? 'Save' : 'Make server'}
          </Button>
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
