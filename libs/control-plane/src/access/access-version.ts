import { Injectable } from '@nestjs/common';

/**
 * A counter that moves whenever anything that can change who may do what changes: a grant, a
 * user disabled or made administrator, a project created, renamed or deleted. Caches of derived
 * answers (effective permissions, administrators) key on it. The control plane runs as a single
 * replica (its contract), so an in-process counter sees every change; call bump() after commit.
 */
@Injectable()
export class AccessVersion {
  private version = 0;

  get current(): number {
    return this.version;
  }

  bump(): void {
    this.version += 1;
  }
}
