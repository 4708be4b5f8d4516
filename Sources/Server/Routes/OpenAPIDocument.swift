/// The OpenAPI 3.1 description of the API (`Sources/Server/openapi.json`, compiled into the binary), served at
/// `GET /v1/openapi.json`. A test checks that it lists every registered route.
public enum OpenAPIDocument {
    public static var bytes: [UInt8] { PackageResources.openapi_json }
}
