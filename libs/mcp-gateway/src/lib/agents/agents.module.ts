import { DynamicModule, Global, Module } from '@nestjs/common';
import { AgentCalls } from './agent-call';
import { AGENTS_OPTIONS, AgentDirectory, type AgentsOptions } from './agent-directory';
import { AgentMetrics } from './agent-metrics';
import { AgentProxy } from './agent-proxy';
import { AgentProxyController } from './agent-proxy.controller';
import { AgentTools } from './agent-tools';
import { AgentProject, AgentsController } from './agents.controller';

/**
 * A2A agents (issue 38): the admin API `/api/v1/agents`, each agent served at `/agents/{name}`
 * (AgentProxyController, AgentProxy), their cards and health (AgentDirectory), and AgentTools, through which the
 * runtime's pool offers an agent as a tool. Global, so the pool and the dashboard find it. Needs
 * McpRegistryModule (ServerRegistry, RegistryStore, the admin guard) and McpAccessModule (the
 * access policy); an agent's per-caller auth is served by the registry's UpstreamCredentials, the
 * credentials module of tool servers and agents.
 */
@Global()
@Module({})
export class McpAgentsModule {
  static forOptions(options: AgentsOptions): DynamicModule {
    return {
      module: McpAgentsModule,
      controllers: [AgentsController, AgentProxyController],
      providers: [
        { provide: AGENTS_OPTIONS, useValue: options },
        AgentMetrics,
        AgentDirectory,
        { provide: AgentCalls, useFactory: (directory: AgentDirectory, metrics: AgentMetrics) => new AgentCalls(directory, metrics), inject: [AgentDirectory, AgentMetrics] },
        AgentTools,
        AgentProxy,
        AgentProject,
      ],
      exports: [AgentDirectory, AgentMetrics, AgentTools],
    };
  }
}
