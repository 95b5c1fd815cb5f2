import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ContractHttpError } from './contract-http-error';

/**
 * Renders this package's errors on its own routes (sync, dashboard) in the suite's envelope with
 * their codes and headers, whatever global filter the product installed.
 */
@Catch(ContractHttpError)
export class ContractErrorFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: ContractHttpError, host: ArgumentsHost): void {
    const adapter = this.adapterHost.httpAdapter;
    const response = host.switchToHttp().getResponse<unknown>();
    for (const [name, value] of Object.entries(exception.headers)) adapter.setHeader(response, name, value);
    adapter.reply(response, exception.getResponse(), exception.getStatus());
  }
}
