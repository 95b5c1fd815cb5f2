import { Badge, NavLink, Stack, Text } from '@mantine/core';
import { useShellConfig } from '../shell-config/shell-config-context';

/** Names for the products Arbor ships; another team's product shows its key until it has one here. */
const MODULE_TITLES: Record<string, string> = {
  'control-plane': 'Control plane',
  'ai-gateway': 'AI gateway',
  'mcp-gateway': 'MCP gateway',
};

export function moduleTitle(key: string): string {
  return MODULE_TITLES[key] ?? key;
}

/** The suite's modules (CP_SUITE_<PRODUCT>_URL), this one marked as the current one. */
export function ModuleRail() {
  const { modules, product } = useShellConfig();
  return (
    <Stack gap={2} component="nav" aria-label="Suite modules">
      <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm">
        Modules
      </Text>
      {modules.map((module) =>
        module.key === product.key ? (
          <NavLink
            key={module.key}
            href="/"
            label={moduleTitle(module.key)}
            active
            variant="filled"
            aria-current="page"
            rightSection={
              <Badge size="xs" color="white" c="teal.9">
                current
              </Badge>
            }
          />
        ) : (
          <NavLink key={module.key} href={module.url} label={moduleTitle(module.key)} />
        ),
      )}
    </Stack>
  );
}
