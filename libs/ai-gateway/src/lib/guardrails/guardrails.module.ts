import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { CallsModule } from '../calls/calls.module';
import { Guardrails } from './guardrails';

/** The config's guardrails, a stage of the call pipeline (it registers itself when the config names any). */
@Module({
  imports: [CallsModule, BudgetsModule],
  providers: [Guardrails],
  // The vendor pass-throughs check the model calls they carry with it.
  exports: [Guardrails],
})
export class GuardrailsModule {}
