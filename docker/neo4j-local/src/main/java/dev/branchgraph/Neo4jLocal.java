package dev.branchgraph;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Starts a real Neo4j (community) with the Bolt connector on loopback and runs until it is
 * sent SIGTERM. Used where no container engine exists; production uses docker/compose.yml.
 *
 * <p>Arguments: DATA_DIR PORT. Authentication is disabled because the connector listens on
 * 127.0.0.1 only.
 */
public final class Neo4jLocal {
    private Neo4jLocal() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Neo4jLocal DATA_DIR PORT");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        Files.createDirectories(home);

        DatabaseManagementService service = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                // LOAD CSV may not read the machine's files, whatever reaches the server
                // (branchgraph's read-only gate refuses LOAD CSV too, by the query plan).
                .setConfig(GraphDatabaseSettings.allow_file_urls, false)
                // The machine is small and shared: keep the page cache modest.
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(512))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            service.shutdown();
            stopped.countDown();
        }, "neo4j-local-shutdown"));

        System.out.println("neo4j-local: bolt://127.0.0.1:" + port + " ready");
        System.out.flush();
        stopped.await();
    }
}
