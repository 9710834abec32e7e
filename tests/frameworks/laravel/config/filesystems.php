<?php
// config/filesystems.php: one local disk under storage/app (uploads are stored there).
return [
    'default' => 'local',
    'disks' => [
        'local' => ['driver' => 'local', 'root' => storage_path('app')],
    ],
];
