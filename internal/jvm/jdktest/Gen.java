// Answers questions about Java's own behaviour, one per line, for the
// differential tests of zkwriter (run by package jdktest, no build step):
//
//     java -cp jackson-databind.jar:jackson-core.jar:jackson-annotations.jar Gen.java
//
// Each input line is an operation name followed by its arguments, each the
// standard Base64 of a UTF-8 string, separated by single spaces. Each output
// line is either "error <text>" or the number of results followed by the
// results, each as standard Base64 of UTF-8 bytes, separated by single
// spaces.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

public class Gen {
    static final ObjectMapper MAPPER = new ObjectMapper();

    public static void main(String[] argv) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] fields = line.split(" ", -1);
            List<String> args = new ArrayList<>();
            for (int i = 1; i < fields.length; i++) {
                args.add(new String(Base64.getDecoder().decode(fields[i]), StandardCharsets.UTF_8));
            }
            List<byte[]> results;
            try {
                results = answer(fields[0], args);
            } catch (Exception e) {
                out.write("error " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
                out.newLine();
                continue;
            }
            StringBuilder b = new StringBuilder().append(results.size());
            for (byte[] r : results) {
                b.append(' ').append(Base64.getEncoder().encodeToString(r));
            }
            out.write(b.toString());
            out.newLine();
        }
        out.flush();
    }

    static List<byte[]> answer(String op, List<String> args) throws Exception {
        switch (op) {
            case "hash":
                return one(Integer.toString(args.get(0).hashCode()));
            case "hashmap": {
                Map<String, String> m = new HashMap<>();
                for (String k : args) m.put(k, k);
                return strings(m.keySet());
            }
            case "properties": {
                Properties p = new Properties();
                for (String k : args) p.put(k, k);
                List<String> keys = new ArrayList<>();
                for (Map.Entry<Object, Object> e : p.entrySet()) keys.add((String) e.getKey());
                return strings(keys);
            }
            case "config":
                return List.of(config(args));
            case "acls":
                return List.of(acls(args));
            case "json":
                return List.of(MAPPER.writeValueAsBytes(args.get(0)));
            case "double":
                return one(Double.toString(Double.longBitsToDouble(Long.parseUnsignedLong(args.get(0), 16))));
            case "urlencode":
                return one(URLEncoder.encode(args.get(0), StandardCharsets.UTF_8));
            case "urldecode":
                return one(URLDecoder.decode(args.get(0), StandardCharsets.UTF_8));
            case "readtree":
                return readTree(HexFormat.of().parseHex(args.get(0)));
            case "parseint":
                return one(Integer.toString(Integer.parseInt(args.get(0))));
            case "parselong":
                return one(Long.toString(Long.parseLong(args.get(0))));
            case "parsedouble":
                return one(Long.toHexString(Double.doubleToRawLongBits(Double.parseDouble(args.get(0)))));
            case "base64":
                return one(HexFormat.of().formatHex(Base64.getDecoder().decode(args.get(0))));
            case "uuidbytes":
                return one(HexFormat.of().formatHex(Base64.getUrlDecoder().decode(args.get(0))));
            default:
                throw new IllegalArgumentException("unknown operation " + op);
        }
    }

    // config: the bytes of a config znode whose pairs are the arguments
    // (key, value, key, value...): a HashMap filled in ascending key order,
    // copied into a Properties by iterating it, inside an insertion-ordered
    // map of version and config, written by Jackson.
    static byte[] config(List<String> args) throws Exception {
        TreeMap<String, String> sorted = new TreeMap<>();
        for (int i = 0; i + 1 < args.size(); i += 2) sorted.put(args.get(i), args.get(i + 1));
        Map<String, String> image = new HashMap<>();
        for (Map.Entry<String, String> e : sorted.entrySet()) image.put(e.getKey(), e.getValue());
        Properties props = new Properties();
        image.forEach(props::put);
        Map<String, Object> znode = new LinkedHashMap<>();
        znode.put("version", 1);
        znode.put("config", props);
        return MAPPER.writeValueAsBytes(znode);
    }

    // acls: the bytes of an ACL znode whose entries are the arguments in
    // groups of four (principal, permissionType, operation, host): each
    // entry a HashMap, the list in argument order, inside a HashMap with
    // the version.
    static byte[] acls(List<String> args) throws Exception {
        List<Map<String, Object>> entries = new ArrayList<>();
        for (int i = 0; i + 3 < args.size(); i += 4) {
            Map<String, Object> entry = new HashMap<>();
            entry.put("principal", args.get(i));
            entry.put("permissionType", args.get(i + 1));
            entry.put("operation", args.get(i + 2));
            entry.put("host", args.get(i + 3));
            entries.add(entry);
        }
        Map<String, Object> znode = new HashMap<>();
        znode.put("version", 1);
        znode.put("acls", entries);
        return MAPPER.writeValueAsBytes(znode);
    }

    // readTree: what Kafka's Json.parseBytes, a default ObjectMapper's
    // readTree, makes of the bytes: the node type, then for an object each
    // member's name, node class and, for text, the text.
    static List<byte[]> readTree(byte[] data) throws Exception {
        JsonNode node = MAPPER.readTree(data);
        List<String> out = new ArrayList<>();
        out.add(node.getNodeType().toString());
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.add(e.getKey());
            out.add(e.getValue().getClass().getSimpleName());
            out.add(e.getValue().isTextual() ? e.getValue().textValue() : "");
        }
        return strings(out);
    }

    static List<byte[]> one(String s) {
        return List.of(s.getBytes(StandardCharsets.UTF_8));
    }

    static List<byte[]> strings(Iterable<String> ss) {
        List<byte[]> out = new ArrayList<>();
        for (String s : ss) out.add(s.getBytes(StandardCharsets.UTF_8));
        return out;
    }
}
