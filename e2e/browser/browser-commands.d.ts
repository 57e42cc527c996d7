// The commands browser-project.ts gives the pages of a browser project, as the page calls them.
import 'vitest/browser';

declare module 'vitest/browser' {
  interface BrowserCommands {
    /** Refuses every request of this test file's page to another origin (browser-setup.ts calls it). */
    guardOrigins(): Promise<void>;
    /** The URLs refused since the last call, oldest first; forgets them. */
    takeRefusedRequests(): Promise<string[]>;
    /** Starts an HTTP server on loopback (another origin than the page's) and returns its URL. */
    startOtherOrigin(): Promise<string>;
    /** Stops that server and returns how many requests reached it. */
    stopOtherOrigin(url: string): Promise<number>;
  }
}
