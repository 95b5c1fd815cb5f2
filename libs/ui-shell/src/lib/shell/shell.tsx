import { Alert, AppShell, Button, Group, Loader, NavLink, Stack, Text, Title } from '@mantine/core';
import { Suspense } from 'react';
import { NavLink as RouterLink, Outlet, useLocation } from 'react-router';
import { useAuth } from '../auth/auth-context';
import { notifyFailure } from '../common/errors';
import { useShellConfig } from '../shell-config/shell-config-context';
import { ModuleRail } from './module-rail';
import { ProjectSwitcher } from './project-switcher';
import { useMe, useMyProjects, useWorkspaceSettings, type Me } from './shell-queries';
import { ThemeControl } from './theme-control';

/** A page of the product, in its navigation beside the module rail. */
export interface ShellPage {
  to: string;
  label: string;
  /** Whether the signed-in person sees the link (default: everyone); the page itself says why it is empty. */
  visible?(me: Me): boolean;
}

/** The frame of every page: module rail and pages on the left; project, theme and the person on top. */
export function Shell({ pages }: { pages: readonly ShellPage[] }) {
  const { signOut } = useAuth();
  const me = useMe();
  // The product pages wait for this list to know a workspace role's projects: say why if it fails.
  const projects = useMyProjects();
  const workspace = useWorkspaceSettings().data;
  const location = useLocation();
  const { product } = useShellConfig();
  return (
    <AppShell header={{ height: 64 }} navbar={{ width: 230, breakpoint: 'xs' }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Title order={1} size="h3">
            Arbor{workspace ? ` · ${workspace.name}` : ''}
          </Title>
          <Group gap="md" wrap="nowrap" align="end">
            <ProjectSwitcher />
            <ThemeControl />
            <Text size="sm" data-testid="signed-in-as">
              {me.data?.display_name ?? ''}
            </Text>
            <Button size="xs" variant="default" onClick={() => signOut().catch(notifyFailure('Signing out failed'))}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <Stack gap="lg">
          <ModuleRail />
          <Stack gap={2} component="nav" aria-label={product.title}>
            <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm">
              {product.title}
            </Text>
            {pages
              .filter((page) => !page.visible || (me.data !== undefined && page.visible(me.data)))
              .map((page) => (
                <NavLink
                  variant="filled"
                  key={page.to}
                  component={RouterLink}
                  to={page.to}
                  label={page.label}
                  active={page.to === '/' ? location.pathname === '/' : location.pathname.startsWith(page.to)}
                />
              ))}
          </Stack>
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main>
        {me.isError && (
          <Alert color="red" title="Your profile could not be loaded">
            {me.error.message}
          </Alert>
        )}
        {projects.isError && (
          <Alert color="red" title="Your projects could not be loaded">
            {projects.error.message}
          </Alert>
        )}
        {me.data?.disabled && (
          <Alert color="orange" title="Your account is disabled" mb="md">
            An administrator has disabled your account: you have no permissions and can change nothing.
          </Alert>
        )}
        {me.isPending ? (
          <Loader aria-label="Loading" />
        ) : (
          <Suspense fallback={<Loader aria-label="Loading" />}>
            <Outlet />
          </Suspense>
        )}
        {workspace && (
          <Text size="xs" c="dimmed" mt="xl">
            Times are shown in the workspace time zone, {workspace.timezone}.
          </Text>
        )}
      </AppShell.Main>
    </AppShell>
  );
}
