import { Global, Module } from '@nestjs/common';
import { ControlPlaneConfig } from '@arbor/config';
import { AccessVersion } from './access/access-version';
import { AuditLog } from './audit/audit.service';
import { SecretCipher } from './repository-secret/secret-cipher';
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
      provide: SecretCipher,
      inject: [ControlPlaneConfig],
      useFactory: (config: ControlPlaneConfig) =>
        new SecretCipher(
          config.CP_SECRETS_MASTER_KEY,
          (config.CP_SECRETS_PREVIOUS_MASTER_KEYS ?? '').split(',').map((key) => key.trim()).filter(Boolean),
        ),
    },
  ],
  exports: [AccessVersion, AuditLog, UserDirectory, ControlPlaneAdmins, SecretCipher],
})
export class ControlPlaneCoreModule {}
