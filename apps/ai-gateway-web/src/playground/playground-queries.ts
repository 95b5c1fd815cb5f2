import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { playgroundClient, streamChat, type ChatListener, type ChatTurn } from './chat-stream';

/** The key the playground calls with: its secret stays in memory (React state), `id` names it in query keys instead. */
export interface PlaygroundKey {
  id: string;
  secret: string;
  label: string;
}

export function usePlaygroundClient(key: PlaygroundKey) {
  return useMemo(() => playgroundClient(key.secret), [key.secret]);
}

/** The aliases this key may call, as the gateway's GET /v1/models answers it. */
export function useKeyModels(key: PlaygroundKey) {
  const client = usePlaygroundClient(key);
  return useQuery({
    queryKey: ['ai-gateway', 'playground', 'models', key.id],
    retry: false,
    queryFn: async () => (await client.models.list()).data.map((model) => model.id).sort((a, b) => a.localeCompare(b)),
  });
}

/** One chat streamed through the gateway; `listener` hears the headers and the answer as they arrive. */
export function useChatStream(key: PlaygroundKey) {
  const client = usePlaygroundClient(key);
  return useMutation({
    mutationFn: ({ alias, turns, listener, signal }: { alias: string; turns: ChatTurn[]; listener: ChatListener; signal: AbortSignal }) =>
      streamChat(client, alias, turns, listener, signal),
  });
}
