import { Global, Module } from '@nestjs/common';
import { ControlPlaneConfig } from '@arbor/config';
import { AccessVersion } from './access/access-version';
import { AuditLog } from './audit/audit.service';
import { SecretSealer } from '@arbor/contract';
import { MASTER_KEY_ID_LABEL } from './repository-secret/master-key';
import { ControlPlaneAdmins } from './users/control-plane-admins';
import { UserDirectory } from './users/user-directory.service';

/** What every control plane feature shares. */
@Global()
@Module({
  providers: [
    AccessVersion,
    AuditLog,
    UserDirectory,
    ControlPlaneAdmins,
    {
      provide: SecretSealer,
      inject: [ControlPlaneConfig],
      // The project id is each token's context; docs/operations.md has the rotation procedure.
      useFactory: (config: ControlPlaneConfig) =>
        new SecretSealer({
          currentKey: config.CP_SECRETS_MASTER_KEY,
          previousKeys: (config.CP_SECRETS_PREVIOUS_MASTER_KEYS ?? '')
            .split(',')
            .map((key) => key.trim())
            .filter(Boolean),
          keyIdLabel: MASTER_KEY_ID_LABEL,
          keyName: 'a master key',
        }),
    },
  ],
  exports: [AccessVersion, AuditLog, UserDirectory, ControlPlaneAdmins, SecretSealer],
})
export class ControlPlaneCoreModule {}
