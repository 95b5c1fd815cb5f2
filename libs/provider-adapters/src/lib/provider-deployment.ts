/** One upstream model as the configuration names it (`openai/gpt-4o` → provider `openai`, model `gpt-4o`). */
export interface ProviderDeployment {
  provider: string;
  model: string;
  apiBase?: string;
  apiKey?: string;
  apiVersion?: string;
  /** Whole-call limit; undefined means the adapter's default. */
  timeoutMs?: number;
  /**
   * The provider's other `litellm_params` (`aws_region_name`, `vertex_project`, …) as strings,
   * `os.environ/NAME` resolved; what the provider folder's `settings.params` lists.
   */
  params?: Readonly<Record<string, string>>;
}
