import { Checkbox, Table, Text } from '@mantine/core';
import { moduleTitle } from '@arbor/ui-shell';
import { holds, toggle, type GrantRow, type GrantSet } from './grant-set';

export interface MatrixProduct {
  key: string;
  roles: { key: string; role: string }[];
}

interface GrantsMatrixProps {
  /** From GET /api/v1/products: the columns are never hard-coded. */
  products: readonly MatrixProduct[];
  /** Project slugs, one row each after the workspace row. */
  projects: readonly string[];
  value: GrantSet;
  onChange(next: GrantSet): void;
  disabled?: boolean;
}

/** Rows: the workspace, then each project. Columns: per product, its sign-in key and each of its roles. */
export function GrantsMatrix({ products, projects, value, onChange, disabled }: GrantsMatrixProps) {
  const rows: { label: string; row: GrantRow }[] = [
    { label: 'Workspace', row: { scope: 'workspace' } },
    ...projects.map((slug) => ({ label: slug, row: { scope: 'project' as const, slug } })),
  ];
  const columns = products.flatMap((product) => [{ product, key: product.key, label: 'sign-in' }, ...product.roles.map((role) => ({ product, key: role.key, label: role.role }))]);
  return (
    <Table withColumnBorders aria-label="Permission grants" layout="auto">
      <Table.Thead>
        <Table.Tr>
          <Table.Th rowSpan={2}>Scope</Table.Th>
          {products.map((product) => (
            <Table.Th key={product.key} colSpan={1 + product.roles.length} ta="center">
              {moduleTitle(product.key)}
            </Table.Th>
          ))}
        </Table.Tr>
        <Table.Tr>
          {columns.map((column) => (
            <Table.Th key={column.key} ta="center">
              <Text size="xs">{column.label}</Text>
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map(({ label, row }) => (
          <Table.Tr key={label}>
            <Table.Th scope="row">{label}</Table.Th>
            {columns.map((column) => (
              <Table.Td key={column.key} ta="center">
                <Checkbox
                  aria-label={`${label}: ${column.key}`}
                  checked={holds(value, row, column.key)}
                  disabled={disabled}
                  onChange={(event) => onChange(toggle(value, row, column.key, event.currentTarget.checked))}
                  styles={{ body: { justifyContent: 'center' } }}
                />
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
