<?php
// config/session.php: read by the cookie provider (path, domain, SameSite); no session is started.
return [
    'driver' => 'array', 'lifetime' => 120, 'expire_on_close' => false, 'encrypt' => false,
    'cookie' => 'check_session', 'path' => '/', 'domain' => null, 'secure' => false,
    'http_only' => true, 'same_site' => 'lax',
];
