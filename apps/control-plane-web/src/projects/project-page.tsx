import { Alert, Anchor, Button, Group, Loader, Stack, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { answer, ConfirmButton, fieldError, FormErrorAlert, notifyFailure, useControlPlaneApi } from '@arbor/ui-shell';
import { useProject, useProjectMutation, type Project } from './project-queries';
import { RepositoriesSection } from './repositories-section';
import { RepositoryTokenSection } from './repository-token-section';

export function ProjectPage() {
  const { id = '' } = useParams();
  const project = useProject(id);
  if (project.isPending) return <Loader aria-label="Loading" />;
  if (project.isError) return <Alert color="red">{project.error.message}</Alert>;
  return (
    <Stack gap="xl">
      <Anchor component={Link} to="/projects" size="sm">
        ← Projects
      </Anchor>
      <Title order={2}>Project {project.data.name}</Title>
      <ProjectSettings project={project.data} />
      <RepositoriesSection projectId={id} />
      <RepositoryTokenSection projectId={id} />
    </Stack>
  );
}

function ProjectSettings({ project }: { project: Project }) {
  const api = useControlPlaneApi();
  const navigate = useNavigate();
  const [name, setName] = useState(project.name);
  const [slug, setSlug] = useState(project.slug);
  const path = { params: { path: { id: project.id } } };
  const rename = useProjectMutation((body: { name: string; slug: string }) => answer(api.PATCH('/api/v1/projects/{id}', { ...path, body })));
  const remove = useProjectMutation(() => answer(api.DELETE('/api/v1/projects/{id}', path)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate({ name, slug });
  };
  return (
    <Stack component="section" aria-label="Project settings">
      <form onSubmit={submit}>
        <Group align="start">
          <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} error={fieldError(rename.error, 'name')} />
          <TextInput label="Slug" value={slug} onChange={(event) => setSlug(event.currentTarget.value)} error={fieldError(rename.error, 'slug')} />
          <Button type="submit" mt={25} loading={rename.isPending} disabled={name === project.name && slug === project.slug}>
            Save
          </Button>
        </Group>
        <FormErrorAlert error={rename.error} fields={['name', 'slug']} />
      </form>
      <Group>
        <ConfirmButton
          title={`Delete project ${project.name}?`}
          message={`Its repositories, its repository token and every permission granted on ${project.slug} are deleted too. Products hear of it.`}
          loading={remove.isPending}
          onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate('/projects'), onError: notifyFailure('The project was not deleted') })}
        >
          Delete project
        </ConfirmButton>
      </Group>
    </Stack>
  );
}
