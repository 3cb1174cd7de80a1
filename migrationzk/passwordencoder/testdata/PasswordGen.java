// Answers questions about how the JDK's javax.crypto encodes and decodes
// password configs the way Kafka 3.9's password encoder does, for the
// differential tests of package passwordencoder. It speaks the protocol
// of internal/jvm/jdktest/Gen.java: one question per line, an operation
// and its Base64 arguments; one answer per line, "error <text>" or the
// count of results and the results in Base64.
//
// Operations:
//   encode secret keyFactory cipher keyLength iterations password
//   decode secret cipher encoded   (cipher: the decoder's own setting)
//   csv text                       (the pairs, sorted by key)
//   base64 text                    (the decoded bytes)
// An empty keyFactory stands for "not configured".

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Cipher;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

public class PasswordGen {
    static final SecureRandom RANDOM = new SecureRandom();

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

    static List<byte[]> answer(String op, List<String> a) throws Exception {
        switch (op) {
            case "encode":
                return texts(encode(a.get(0), a.get(1).isEmpty() ? null : a.get(1), a.get(2),
                        Integer.parseInt(a.get(3)), Integer.parseInt(a.get(4)), a.get(5)));
            case "decode":
                return texts(decode(a.get(0), a.get(1), a.get(2)));
            case "csv": {
                List<String> flat = new ArrayList<>();
                for (Map.Entry<String, String> e : new TreeMap<>(pairs(a.get(0))).entrySet()) {
                    flat.add(e.getKey());
                    flat.add(e.getValue());
                }
                return texts(flat.toArray(new String[0]));
            }
            case "base64": {
                List<byte[]> r = new ArrayList<>();
                r.add(Base64.getDecoder().decode(a.get(0)));
                return r;
            }
        }
        throw new IllegalArgumentException("unknown operation " + op);
    }

    static List<byte[]> texts(String... s) {
        List<byte[]> r = new ArrayList<>();
        for (String x : s) r.add(x.getBytes(StandardCharsets.UTF_8));
        return r;
    }

    // The key factory a name selects; with no name, the SHA-512 one, or the
    // SHA-1 one on a JDK without it.
    static SecretKeyFactory keyFactory(String name) throws NoSuchAlgorithmException {
        if (name != null) return SecretKeyFactory.getInstance(name);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA512");
        } catch (NoSuchAlgorithmException e) {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA1");
        }
    }

    // The AES key: PBKDF2 over the secret's characters, named after the part
    // of the cipher transformation before its first '/'.
    static SecretKeySpec aesKey(SecretKeyFactory factory, String secret, String cipher, int keyLength,
                                byte[] salt, int iterations) throws Exception {
        byte[] raw = factory.generateSecret(new PBEKeySpec(secret.toCharArray(), salt, iterations, keyLength)).getEncoded();
        int slash = cipher.indexOf('/');
        return new SecretKeySpec(raw, slash > 0 ? cipher.substring(0, slash) : cipher);
    }

    static String encode(String secret, String keyFactoryName, String cipherName, int keyLength, int iterations,
                         String password) throws Exception {
        byte[] salt = new byte[256];
        RANDOM.nextBytes(salt);
        Cipher cipher = Cipher.getInstance(cipherName);
        SecretKeyFactory factory = keyFactory(keyFactoryName);
        cipher.init(Cipher.ENCRYPT_MODE, aesKey(factory, secret, cipherName, keyLength, salt, iterations));
        byte[] encrypted = cipher.doFinal(password.getBytes(StandardCharsets.UTF_8));
        Map<String, String> m = new HashMap<>();
        m.put("keyFactoryAlgorithm", factory.getAlgorithm());
        m.put("cipherAlgorithm", cipherName);
        m.put("keyLength", Integer.toString(keyLength));
        m.put("salt", Base64.getEncoder().encodeToString(salt));
        m.put("iterations", Integer.toString(iterations));
        m.put("encryptedPassword", Base64.getEncoder().encodeToString(encrypted));
        m.put("passwordLength", Integer.toString(password.length()));
        AlgorithmParameters params = cipher.getParameters();
        if (cipherName.startsWith("AES/GCM/")) {
            GCMParameterSpec spec = params.getParameterSpec(GCMParameterSpec.class);
            Map<String, String> gcm = new HashMap<>();
            gcm.put("initializationVector", Base64.getEncoder().encodeToString(spec.getIV()));
            gcm.put("authenticationTagLength", Integer.toString(spec.getTLen()));
            m.putAll(gcm);
        } else {
            m.put("initializationVector", Base64.getEncoder().encodeToString(params.getParameterSpec(IvParameterSpec.class).getIV()));
        }
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : m.entrySet()) {
            if (b.length() > 0) b.append(',');
            b.append(e.getKey()).append(':').append(e.getValue());
        }
        return b.toString();
    }

    static String decode(String secret, String configuredCipher, String encoded) throws Exception {
        Map<String, String> m = pairs(encoded);
        String cipherName = m.get("cipherAlgorithm");
        int keyLength = Integer.parseInt(m.get("keyLength"));
        byte[] salt = Base64.getDecoder().decode(m.get("salt"));
        int iterations = Integer.parseInt(m.get("iterations"));
        byte[] encrypted = Base64.getDecoder().decode(m.get("encryptedPassword"));
        int length = Integer.parseInt(m.get("passwordLength"));
        Cipher cipher = Cipher.getInstance(cipherName);
        SecretKeySpec key = aesKey(keyFactory(m.get("keyFactoryAlgorithm")), secret, cipherName, keyLength, salt, iterations);
        AlgorithmParameterSpec spec;
        if (configuredCipher.startsWith("AES/GCM/")) {
            spec = new GCMParameterSpec(Integer.parseInt(m.get("authenticationTagLength")),
                    Base64.getDecoder().decode(m.get("initializationVector")));
        } else {
            spec = new IvParameterSpec(Base64.getDecoder().decode(m.get("initializationVector")));
        }
        cipher.init(Cipher.DECRYPT_MODE, key, spec);
        String password = new String(cipher.doFinal(encrypted), StandardCharsets.UTF_8);
        if (password.length() != length) throw new IllegalStateException("length check failed");
        return password;
    }

    // Pairs "k:v" separated by commas with optional \s around them, split
    // at the last ':', both sides trimmed; a later key wins.
    static Map<String, String> pairs(String s) {
        Map<String, String> m = new HashMap<>();
        if (s == null || s.isEmpty()) return m;
        for (String piece : s.split("\\s*,\\s*")) {
            int colon = piece.lastIndexOf(':');
            m.put(piece.substring(0, colon).trim(), piece.substring(colon + 1).trim());
        }
        return m;
    }
}
