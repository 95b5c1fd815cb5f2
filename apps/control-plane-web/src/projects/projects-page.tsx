import { Alert, Anchor, Button, Group, Stack, Table, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { answer, fieldError, FormErrorAlert, useControlPlaneApi, useFormatInstant, usePaged } from '@arbor/ui-shell';
import { useProjectMutation, useProjects } from './project-queries';

export function ProjectsPage() {
  const projects = useProjects();
  const formatInstant = useFormatInstant();
  const { items, pager } = usePaged(projects.data ?? []);
  return (
    <Stack>
      <Title order={2}>Projects</Title>
      <CreateProjectForm />
      {projects.isError && <Alert color="red">{projects.error.message}</Alert>}
      <Table striped highlightOnHover aria-label="Projects">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Slug</Table.Th>
            <Table.Th>Repositories</Table.Th>
            <Table.Th>Changed</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((project) => (
            <Table.Tr key={project.id}>
              <Table.Td>
                <Anchor component={Link} to={`/projects/${project.id}`}>
                  {project.name}
                </Anchor>
              </Table.Td>
              <Table.Td>{project.slug}</Table.Td>
              <Table.Td>{project.repository_count}</Table.Td>
              <Table.Td>{formatInstant(project.updated_at)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {pager}
    </Stack>
  );
}

function CreateProjectForm() {
  const api = useControlPlaneApi();
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const create = useProjectMutation((body: { slug: string; name: string }) => answer(api.POST('/api/v1/projects', { body })));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { slug, name },
      {
        onSuccess: () => {
          setSlug('');
          setName('');
        },
      },
    );
  };
  return (
    <form onSubmit={submit} aria-label="New project">
      <Group align="start">
        <TextInput label="Slug" value={slug} onChange={(event) => setSlug(event.currentTarget.value)} error={fieldError(create.error, 'slug')} required />
        <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} error={fieldError(create.error, 'name')} required />
        <Button type="submit" mt={25} loading={create.isPending}>
          Create project
        </Button>
      </Group>
      <FormErrorAlert error={create.error} fields={['slug', 'name']} />
    </form>
  );
}
