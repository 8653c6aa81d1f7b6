/**
 * The command line, up to the agent's start: upstream's NewProxyCommand with its Options
 * (cmd/kube-proxy/app/server.go, cmd/kube-proxy/app/options.go).
 *
 * <p>It owns:
 * <ul>
 *   <li>the flags: their table ({@link dev.kubeproxy.cli.KubeProxyFlags}, each configuration flag
 *       naming its schema field, its default read from the schema), pflag's parsing and values
 *       ({@link dev.kubeproxy.cli.FlagParser}, {@link dev.kubeproxy.cli.FlagValues}, {@link
 *       dev.kubeproxy.cli.ParsedFlags}), --help and --version ({@link dev.kubeproxy.cli.HelpPrinter},
 *       {@link dev.kubeproxy.cli.Version}), and {@code vertx run}'s JSON form of them ({@link
 *       dev.kubeproxy.cli.JsonArgs});</li>
 *   <li>Complete ({@link dev.kubeproxy.cli.KubeProxyOptions}): flags, the --config file (as the
 *       agent's {@code ConfigVerticle} read it) and platform defaults merged with upstream's
 *       precedence;</li>
 *   <li>the start-up sequence ({@link dev.kubeproxy.cli.Startup}): the flags, --version and --help
 *       before any Vert.x instance exists ({@code parse}); then, once the --config file is read,
 *       Complete, logging, the flag dump, Validate, --write-config-to and the node name ({@code
 *       prepare}), ending in an exit status or the {@code AgentOptions} to run with. It never exits
 *       the process itself.</li>
 * </ul>
 *
 * <p>It may call {@code dev.kubeproxy.config} (schema, file loading, defaults, validation, gates),
 * {@code dev.kubeproxy.logging} and Vert.x (only for {@code kube-proxy explain}, which reads the
 * --config file once through {@code ConfigFileLoader} outside the agent), and builds {@code
 * dev.kubeproxy.config.AgentOptions}. Nothing in the running agent calls back into it; {@code
 * Main} and {@code AgentVerticle} call {@link dev.kubeproxy.cli.Startup#parse} and {@link
 * dev.kubeproxy.cli.Startup#prepare} once.
 */
package dev.kubeproxy.cli;
