import Foundation

extension RepositoryConfiguration {
    /// Django REST Framework's defaults (`ModelViewSet` on a `DefaultRouter`): lists in a
    /// `results` envelope, item routes with a trailing slash, PATCH as `application/json`. Write the
    /// repository's `path` with its trailing slash too (`"notes/"`). Dates as DRF writes them:
    /// ISO 8601 with fractional seconds (``DateCoding/iso8601``).
    public static var djangoREST: RepositoryConfiguration {
        var configuration = RepositoryConfiguration(
            collectionEnvelope: "results", itemTrailingSlash: true, patchFormat: .json)
        configuration.coding = EntityCoding(dates: .iso8601)
        return configuration
    }

    /// json-server (and Express apps on its model): bare arrays and objects, no trailing slash,
    /// PATCH as `application/json` (Express's `json()` parser reads nothing else).
    public static var jsonServer: RepositoryConfiguration {
        RepositoryConfiguration(patchFormat: .json)
    }
}

extension SynchronizationConfiguration {
    /// Django REST Framework: the `next` link its three paginations (page number, limit/offset,
    /// cursor) all put in the body, and no batch endpoint: changes go entity by entity.
    public static var djangoREST: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .nextLink("next"), pushMode: .each)
    }

    /// json-server's `_page`/`_limit` paging with `X-Total-Count`, and no batch endpoint.
    public static var jsonServer: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .pageQuery(page: "_page", limit: "_limit", size: 100), pushMode: .each)
    }
}
