import { Select } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMe, useMyProjects, useSetDefaultProject } from './shell-queries';

/** The person's default project, shared by every product UI (PUT /api/v1/me/default-project). */
export function ProjectSwitcher() {
  const me = useMe().data;
  const projects = useMyProjects().data ?? [];
  const setDefault = useSetDefaultProject();
  return (
    <Select
      label="Project"
      aria-label="Project"
      size="xs"
      w={200}
      placeholder={projects.length === 0 ? 'No projects' : 'Choose a project'}
      data={projects.map((project) => ({ value: project.id, label: `${project.name} (${project.slug})` }))}
      value={me?.default_project?.id ?? null}
      disabled={me?.disabled || projects.length === 0}
      clearable
      searchable
      onChange={(projectId) =>
        setDefault.mutate(projectId, {
          onError: (error) => notifications.show({ color: 'red', title: 'The project was not saved', message: error.message }),
        })
      }
    />
  );
}
