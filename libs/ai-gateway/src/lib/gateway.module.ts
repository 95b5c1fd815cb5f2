import { DynamicModule, Module } from '@nestjs/common';
import { ChatCompletionsController } from './chat/chat-completions.controller';
import { EMPTY_GATEWAY_CONFIG, loadGatewayConfigFile } from './config/gateway-config';
import { CallRouter } from './call-router';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { DeploymentRouter } from './deployment-router';
import { GatewayClock } from './gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';
import { AdminMasterKeyGuard, GatewayKeyGuard, MasterKeyCheck } from './gateway-key.guard';
import { KeyVerifier } from './keys/key-verifier';
import { KeysController } from './keys/keys.controller';
import { KeysService } from './keys/keys.service';
import { ModelsController } from './models.controller';

export interface GatewayOptions {
  /** AIGW_CONFIG: the LiteLLM-shaped YAML file; none means no aliases. */
  configFile?: string;
  /** AIGW_MASTER_KEY; wins over general_settings.master_key. */
  masterKey?: string;
}

/**
 * The family A routes and the admin API of virtual keys (the service's DatabaseModule must carry
 * AI_GATEWAY_ENTITIES and AI_GATEWAY_MIGRATIONS). Reads and checks the YAML now, so a bad file
 * stops the start (ConfigError).
 */
@Module({})
export class GatewayModule {
  static forOptions(options: GatewayOptions, env: NodeJS.ProcessEnv = process.env): DynamicModule {
    const config = options.configFile ? loadGatewayConfigFile(options.configFile, env) : EMPTY_GATEWAY_CONFIG;
    const masterKey = options.masterKey ?? config.masterKey;
    const settings: GatewaySettings = { ...config, ...(masterKey !== undefined ? { masterKey } : {}) };
    return {
      module: GatewayModule,
      controllers: [ChatCompletionsController, ModelsController, KeysController],
      providers: [
        { provide: GATEWAY_SETTINGS, useValue: settings },
        GatewayClock,
        DeploymentCooldowns,
        DeploymentRouter,
        CallRouter,
        MasterKeyCheck,
        GatewayKeyGuard,
        AdminMasterKeyGuard,
        KeyVerifier,
        KeysService,
      ],
    };
  }
}
