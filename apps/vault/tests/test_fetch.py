"""The URL import's SSRF guard. The resolver is fake and every connection stays on loopback."""

import pytest

from apps.vault.fetch import FetchError, fetch
from apps.vault.tests.fakeweb import PUBLIC_IP, FakeWeb

ARTICLE = "<html><body><article><p>Enzymes lower the activation energy.</p></article></body></html>"


@pytest.fixture
def web():
    fake = FakeWeb()
    fake.names.update(
        {
            "127.0.0.1.nip.io": ["127.0.0.1"],
            "internal.test": ["10.1.2.3"],
            "mixed.test": [PUBLIC_IP, "192.168.0.7"],
            "metadata.test": ["169.254.169.254"],
            "mapped.test": ["::ffff:10.0.0.1"],
        }
    )
    yield fake
    fake.stop()


def get(web: FakeWeb, url: str, **options):
    return fetch(url, resolver=web.resolver, connector=web.connector, **options)


@pytest.mark.parametrize(
    "url",
    [
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://127.0.0.1/",
        "http://0.0.0.0/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::]/",
        "http://[fd00::1]/",
        "http://[fe80::1]/",
        "http://[fe80::1%25eth0]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/",
        "http://10.0.0.1/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://224.0.0.1/",
        "http://255.255.255.255/",
        "http://240.0.0.1/",
        "http://192.0.2.1/",
        "http://127.0.0.1.nip.io/",
        "http://internal.test/",
        "http://mixed.test/",
        "http://metadata.test/",
        "http://mapped.test/",
        "http://localhost/",
        "http://localhost./",
        "http://app.localhost/",
        "http://x@127.0.0.1/",
        "http://x@public.test/",
        "http://user:secret@public.test/",
        "file:///etc/passwd",
        "gopher://public.test:70/_GET",
        "ftp://public.test/",
        "javascript:alert(1)",
        "http://public.test\\@127.0.0.1/",
        "http://public .test/",
        "http://public.test/\x00",
        "http://public.test/\r\nHost: evil",
        "http://08.0.0.1/",
        "http://1.2.3.4.5/",
        "http://256.0.0.1/",
        "http:///nohost",
        "http://public.test:99999/",
        "http://no-such-host.test/",
    ],
)
def test_the_guard_refuses_before_connecting(web, url):
    with pytest.raises(FetchError):
        get(web, url)
    assert web.connections == []


def test_it_connects_only_to_the_address_it_checked(web):
    web.page("/article", ARTICLE)
    page = get(web, "http://public.test/article")
    assert b"activation energy" in page.content
    assert web.connections == [(PUBLIC_IP, 80)]
    assert web.resolved == ["public.test"]  # resolved once, not again at connect time


def test_a_redirect_to_a_private_address_is_refused(web):
    web.page("/go", "", status=302, Location="http://10.0.0.1/admin")
    with pytest.raises(FetchError, match="10.0.0.1"):
        get(web, "http://public.test/go")
    assert web.connections == [(PUBLIC_IP, 80)]


def test_a_redirect_to_a_name_of_a_private_address_is_refused(web):
    web.page("/go", "", status=301, Location="http://127.0.0.1.nip.io/")
    with pytest.raises(FetchError):
        get(web, "http://public.test/go")
    assert len(web.connections) == 1


def test_a_redirect_to_another_scheme_is_refused(web):
    web.page("/go", "", status=302, Location="file:///etc/passwd")
    with pytest.raises(FetchError, match="http"):
        get(web, "http://public.test/go")


def test_a_redirect_between_public_pages_is_followed_and_checked_again(web):
    web.page("/old", "", status=301, Location="http://www.public.test/new")
    web.page("/new", ARTICLE)
    page = get(web, "http://public.test/old")
    assert page.url == "http://www.public.test/new"
    assert web.resolved == ["public.test", "www.public.test"]


def test_endless_redirects_stop(web):
    web.page("/loop", "", status=302, Location="/loop")
    with pytest.raises(FetchError, match="too many"):
        get(web, "http://public.test/loop")


def test_a_page_over_the_size_limit_is_refused(web):
    web.page("/big", "<p>" + "x" * 5000 + "</p>")
    with pytest.raises(FetchError, match="larger"):
        get(web, "http://public.test/big", max_bytes=1000)


def test_a_page_slower_than_the_time_limit_is_abandoned(web):
    web.page("/slow", ARTICLE)
    web.delay = 2
    with pytest.raises(FetchError, match="longer"):
        get(web, "http://public.test/slow", timeout=0.5)


def test_only_web_pages_are_imported(web):
    web.page("/file.zip", b"PK\x03\x04", Content_Type="application/zip")
    with pytest.raises(FetchError, match="not a web page"):
        get(web, "http://public.test/file.zip")


def test_an_error_status_is_reported(web):
    with pytest.raises(FetchError, match="404"):
        get(web, "http://public.test/missing")
