<?php
// config/view.php: where views would live and where Blade compiles them.
return [
    'paths' => [resource_path('views')],
    'compiled' => storage_path('framework/views'),
];
