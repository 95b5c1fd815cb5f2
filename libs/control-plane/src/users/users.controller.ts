import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@arbor/auth';
import { CreateUserDto } from './dto/create-user.dto';
import { ListUsersQuery } from './dto/list-users.query';
import { UpdateUserDto } from './dto/update-user.dto';
import { UserListResponse, UserResponse } from './dto/user.response';
import { UsersService } from './users.service';
import { AdministrationApi } from '../openapi/administration-api.decorator';
import { UuidParam } from '@arbor/platform';

@ApiTags('users')
@AdministrationApi()
@Controller('api/v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({ summary: 'List users, optionally filtered by exact email or a search text' })
  @ApiOkResponse({ type: UserListResponse, description: 'A page of matching users, oldest first.' })
  @ApiBadRequestResponse({ description: '`invalid_request`: an empty or unknown query parameter.' })
  async list(@Query() query: ListUsersQuery): Promise<UserListResponse> {
    const page = await this.users.list({ email: query.email, q: query.q, limit: query.limit, afterId: query.after_id });
    return { users: page.users.map(UserResponse.of), next_after_id: page.nextAfterId };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Pre-create a user by email; their first sign-in with that email claims the record' })
  @ApiCreatedResponse({ type: UserResponse, description: 'The new user (subject null until they sign in).' })
  @ApiBadRequestResponse({ description: '`invalid_request` naming each bad field.' })
  @ApiConflictResponse({ description: '`user_exists`: another user has this email.' })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateUserDto): Promise<UserResponse> {
    return UserResponse.of(await this.users.create(principal, { email: body.email, displayName: body.display_name, admin: body.admin }));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One user' })
  @ApiOkResponse({ type: UserResponse, description: 'The user.' })
  @ApiBadRequestResponse({ description: '`invalid_request`: the id is not a UUID.' })
  @ApiNotFoundResponse({ description: '`user_not_found`.' })
  async get(@Param('id', new UuidParam('id')) id: string): Promise<UserResponse> {
    return UserResponse.of(await this.users.get(id));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Disable or enable a user, grant or remove administration, rename' })
  @ApiOkResponse({ type: UserResponse, description: 'The user after the change (audited as user.updated).' })
  @ApiBadRequestResponse({ description: '`invalid_request`: the id is not a UUID, or a bad field (named).' })
  @ApiNotFoundResponse({ description: '`user_not_found`.' })
  @ApiConflictResponse({ description: '`self_lockout`: an administrator cannot disable themselves or remove their own administration.' })
  async update(@CurrentPrincipal() principal: Principal, @Param('id', new UuidParam('id')) id: string, @Body() body: UpdateUserDto): Promise<UserResponse> {
    return UserResponse.of(await this.users.update(principal, id, { disabled: body.disabled, admin: body.admin, displayName: body.display_name }));
  }
}
