import { Checkbox, PasswordInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { UpstreamAuth } from '../api/mcp-gateway-api';
import type { AuthDraft } from './upstream-auth';

const EXPLAINED: Record<AuthDraft['type'], string> = {
  static: 'Every call carries the headers below, whoever calls.',
  token_exchange:
    "The caller's own sign-in token is exchanged at the suite's identity provider (RFC 8693) for one naming the same person, issued for the upstream's audience. API keys are refused.",
  oauth:
    "Each person connects their own account at the upstream's authorisation server (found from its RFC 9728 metadata) once, from a link the gateway gives them; their token is used for their calls.",
};

/** How the gateway authenticates to an upstream: its `auth` of the admin API, with the client secret write-only. */
export function UpstreamAuthFields(props: { draft: AuthDraft; onChange(draft: AuthDraft): void; stored: UpstreamAuth | undefined; error?: string }) {
  const { draft, onChange } = props;
  const set = (change: Partial<AuthDraft>) => onChange({ ...draft, ...change });
  const storedSecret = props.stored?.type === 'oauth' && props.stored.has_client_secret && props.stored.client_id === draft.clientId.trim();
  return (
    <Stack gap="xs">
      <Text fw={600} size="sm">
        Authentication
      </Text>
      <SegmentedControl
        aria-label="Authentication"
        w="fit-content"
        data={[
          { value: 'static', label: 'Headers' },
          { value: 'token_exchange', label: 'The calling person (token exchange)' },
          { value: 'oauth', label: "Each person's account (OAuth)" },
        ]}
        value={draft.type}
        onChange={(type) => set({ type: type as AuthDraft['type'] })}
      />
      <Text size="sm">{EXPLAINED[draft.type]}</Text>
      {draft.type === 'token_exchange' && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label="Audience"
            description="The upstream's audience at the identity provider (Keycloak: its client id)"
            withAsterisk
            value={draft.audience}
            onChange={(event) => set({ audience: event.currentTarget.value })}
          />
          <TextInput
            label="Scope"
            description="Asked for with the exchange; empty: the provider's default"
            value={draft.scope}
            onChange={(event) => set({ scope: event.currentTarget.value })}
          />
        </SimpleGrid>
      )}
      {draft.type === 'oauth' && (
        <>
          <TextInput
            label="Scope"
            description="Asked for at each connection; empty: what the upstream's metadata lists"
            value={draft.scope}
            onChange={(event) => set({ scope: event.currentTarget.value })}
            w={360}
          />
          <SegmentedControl
            aria-label="OAuth client"
            w="fit-content"
            data={[
              { value: 'registered', label: 'The gateway registers one (RFC 7591)' },
              { value: 'configured', label: 'A client registered there' },
            ]}
            value={draft.client}
            onChange={(client) => set({ client: client as AuthDraft['client'] })}
          />
          {draft.client === 'configured' && (
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Client id" withAsterisk value={draft.clientId} onChange={(event) => set({ clientId: event.currentTarget.value })} />
              <PasswordInput
                label="Client secret"
                description={storedSecret ? 'Stored encrypted; empty keeps it' : 'Stored encrypted, never shown again; empty for a public client'}
                autoComplete="off"
                value={draft.clientSecret}
                onChange={(event) => set({ clientSecret: event.currentTarget.value })}
              />
              <Checkbox
                label="API keys get a token with the client-credentials grant (needs the secret)"
                checked={draft.clientCredentials}
                onChange={(event) => set({ clientCredentials: event.currentTarget.checked })}
              />
            </SimpleGrid>
          )}
        </>
      )}
      {props.error && (
        <Text c="red" size="sm">
          {props.error}
        </Text>
      )}
    </Stack>
  );
}
