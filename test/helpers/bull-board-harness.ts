/**
 * Bull-Board without a web server: createBullBoard() hands its API routes to a server adapter;
 * this one keeps them and lets a test call a route's handler the way an HTTP adapter would
 * (params, query and body as strings/objects, the board's queue map attached).
 */
import { createBullBoard } from '@bull-board/api';
import type {
  AppControllerRoute,
  AppViewRoute,
  BullBoardQueues,
  ControllerHandlerReturnType,
  IServerAdapter,
  UIConfig,
} from '@bull-board/api/typings/app';

type BoardQueues = Parameters<typeof createBullBoard>[0]['queues'];

export interface BoardResponse {
  status: number;
  body: unknown;
}

export interface BoardHarness {
  call(
    method: 'get' | 'put' | 'post' | 'patch',
    route: string,
    request?: {
      params?: Record<string, string>;
      query?: Record<string, string>;
      body?: Record<string, unknown>;
    },
  ): Promise<BoardResponse>;
}

class CapturingServerAdapter implements IServerAdapter {
  queues: BullBoardQueues = new Map();
  routes: AppControllerRoute[] = [];
  uiConfig: UIConfig = {};

  setQueues(queues: BullBoardQueues): IServerAdapter {
    this.queues = queues;
    return this;
  }
  setViewsPath(): IServerAdapter {
    return this;
  }
  setStaticPath(): IServerAdapter {
    return this;
  }
  setEntryRoute(_route: AppViewRoute): IServerAdapter {
    return this;
  }
  setErrorHandler(_handler: (error: Error) => ControllerHandlerReturnType): IServerAdapter {
    return this;
  }
  setApiRoutes(routes: AppControllerRoute[]): IServerAdapter {
    this.routes = routes;
    return this;
  }
  setUIConfig(config: UIConfig): IServerAdapter {
    this.uiConfig = config;
    return this;
  }
}

export function bullBoard(adapters: BoardQueues): BoardHarness {
  const server = new CapturingServerAdapter();
  // uiBasePath only matters for serving the UI bundle, which is not installed (or needed) here.
  createBullBoard({
    queues: adapters,
    serverAdapter: server,
    options: { uiBasePath: '/nonexistent' },
  });
  return {
    async call(method, route, request = {}) {
      const found = server.routes.find((candidate) => {
        const methods = Array.isArray(candidate.method) ? candidate.method : [candidate.method];
        const paths = Array.isArray(candidate.route) ? candidate.route : [candidate.route];
        return methods.includes(method) && paths.includes(route);
      });
      if (!found) throw new Error(`Bull-Board has no route ${method.toUpperCase()} ${route}`);
      const result = await found.handler({
        queues: server.queues,
        uiConfig: server.uiConfig,
        params: request.params ?? {},
        query: request.query ?? {},
        body: request.body ?? {},
        headers: {},
      });
      return { status: result.status ?? 200, body: result.body };
    },
  };
}
