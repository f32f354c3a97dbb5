import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.monitoring.Telemetry;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local, with its own command line, listening on 127.0.0.1 only. Its jar has no option
 * for the address: its server is a Jetty `new Server(port)`, which listens on every interface.
 * This builds that server as the jar's main class does, sets the host of its connector before it
 * starts, and starts it. Telemetry is off (the jar's own main would send usage events to AWS).
 * Compiled once by `local/dynamodb-local.ts`, into node_modules/.cache.
 */
public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    String parentPid = System.getProperty("auth-core.parent-pid");
    if (parentPid != null) {
      java.util.Optional<ProcessHandle> parent = ProcessHandle.of(Long.parseLong(parentPid));
      if (parent.isEmpty()) System.exit(0);
      // onExit polls a process that is not its child: every 0.3 s at first, slowing to 5 s.
      parent.get().onExit().thenRun(() -> System.exit(0));
    }
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    int connectors = 0;
    for (Connector connector : server.getConnectors()) {
      ((ServerConnector) connector).setHost("127.0.0.1");
      connectors++;
    }
    if (connectors == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind to 127.0.0.1");
    Telemetry.configureTelemetry("local", "local", false);
    proxy.start();
  }
}
